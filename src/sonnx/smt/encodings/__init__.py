"""The SMT encodings of the graph rules, one module per rule, named after the direct rule it decides again.

Each encoding states its rule over the raw facts of :mod:`sonnx.smt.facts` and proves it with the solver factory of
:mod:`sonnx.smt.solver`; the infrastructure they share is in the package above. An encoding never imports the direct
rule's checking code: the agreement of the two engines is worth something only because they are independent.
"""
