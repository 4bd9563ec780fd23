"""Builders and helpers shared by the test suite (the one home for them; test modules import only from here).

* :mod:`.cli`: calling the command line in-process and reading what it printed;
* :mod:`.builders`: ONNX protos for loader tests; :mod:`.rulekit`: models and
  verdicts for rule tests; :mod:`.smtkit`: the SMT engine's side of the
  differential tests; :mod:`.partkit`: partitions; :mod:`.rewrite_models`:
  models for rewrite passes; :mod:`.bad_models`: the corpus of malformed
  inputs; :mod:`.backend_cases`: onnx's backend test cases run through sonnx;
  :mod:`.bundles`: writing, copying and forging evidence bundles;
  :mod:`.peers`: what the installed peer runtimes do, asked of them.
"""
