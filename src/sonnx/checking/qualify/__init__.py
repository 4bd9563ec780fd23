"""The tool qualification kit: TORs derived from the rules, a table of test procedures, and the documents.

:func:`~.kit.qualify` runs a suite of cases (:mod:`.cases`) in the user's
environment and writes the requirements, procedures with results,
configuration index, known problems and accomplishment summary
(docs/qualification.rst says what they support and what they are not).
"""
