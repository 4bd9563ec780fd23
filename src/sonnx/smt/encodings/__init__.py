"""The SMT encodings of the graph rules, one module per rule, named after the direct rule it decides again.

Each encoding states its rule over the raw facts of :mod:`sonnx.smt.facts` and proves it with the solver factory of
:mod:`sonnx.smt.solver`; the infrastructure they share is in the package above. An encoding never imports the direct
rule's checking code: the agreement of the two engines is worth something only because they are independent.

Each module exports one ``ENCODING`` record (:class:`sonnx.smt.common.Encoding`): the rule's ``ID``, imported from the
direct rule's module (the constant only), the proof, started from a :class:`sonnx.smt.common.ProofContext`, and the
encodings whose results it reads. :mod:`sonnx.smt.registry` lists them.
"""
