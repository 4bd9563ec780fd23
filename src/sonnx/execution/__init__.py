"""Running a model: the NumPy executor and its compiled plan, the value domain, the input values (read, checked
against the declared types, drawn in the domain the model admits), the order-independence check (EXEC-ORDERS),
profiling, and the ONNX backend over the executor.

It sits above the rules (the trusted facts it shares with them) and below the oracles that compare its results.
"""
