"""What every layer may use: the verdict type and its witnesses, the ``SonnxError`` hierarchy, atomic file writes,
terminal-safe text, progress lines, the BLAS thread count, the per-check cache, strict JSON, and the identity of the
running build (version, commit, digest of the package's files).

Nothing here imports from another sonnx package.
"""
