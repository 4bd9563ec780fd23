"""The check of a model and its records: the pipeline, its options and reports, the evidence bundle, the report formats,
the batch of many models, the replay of a bundle and the comparison of two models.

This is the band above the services (rewrites, partitions) and the oracles: a check drives them and records what they
found. Nothing here is imported from below.
"""
