"""The one error hierarchy of sonnx.

Every failure that can reach a user is a :class:`SonnxError`. The command line
turns it into a single line on stderr and a defined exit code; nothing else
escapes as a traceback. Internal defects (a ``TypeError`` inside a rule, say)
are caught at the command-line boundary and reported as :class:`ToolError`.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_VIOLATED = 1
EXIT_UNUSABLE = 2


class SonnxError(Exception):
    """Root of every error sonnx reports to a user.

    ``exit_code`` is the process exit status the command line uses for it.
    """

    exit_code: int = EXIT_UNUSABLE

    def one_line(self) -> str:
        """The message folded to one line, as the CLI prints it."""
        return " ".join(str(self).split())


class UsageError(SonnxError):
    """The command line or an API call was given arguments it cannot use."""


class InputError(SonnxError):
    """The model file cannot be used as input (missing, unreadable, not ONNX)."""


class ModelFormatError(InputError):
    """The bytes are not a well-formed ONNX model (not protobuf, truncated, invalid fields)."""


class NonCanonicalValueError(ModelFormatError):
    """A stored value's encoding is not canonical, so the runtimes may read it differently or refuse it.

    Two storage fields at once, a payload of the wrong length, a widened entry outside its type's
    range (a BOOL other than 0 or 1), a string that is not UTF-8: what is read from it cannot be
    established, so a rule reading it is UNKNOWN and ``sonnx run`` refuses the model.
    """


class UnsupportedModelError(InputError):
    """The model is well formed but uses an IR version or opset this tool does not know."""


class FunctionShadowingError(UnsupportedModelError):
    """A model-local function takes a standard operator's domain and name (GRAPH-FUNCTION-SHADOWING).

    onnxruntime and onnx's reference evaluator run the standard operator where
    sonnx would inline the function, so the model has no one meaning to run,
    rewrite, compare or partition.
    """


class ExternalDataError(InputError):
    """A tensor's external data is missing, unreadable, or outside the model's folder."""


class UnsafePathError(ExternalDataError):
    """An external-data location is absolute, climbs with ``..``, or links outside the model's folder."""


class ExecutionError(SonnxError):
    """The model cannot be executed as asked (missing or ill-typed input, unsupported operator...)."""


class InputSizeError(ExecutionError):
    """An input the model declares cannot be made at its declared size: a negative dimension, a size numpy
    refuses, or more bytes than the memory available."""


class BudgetExceeded(ExecutionError):
    """A run did not finish within the wall-clock budget it was given (checked between firings, nested graphs
    included), so it was stopped: nothing is known about the outputs it would have given."""


class ToolError(SonnxError):
    """sonnx itself failed (an internal defect, or two engines that disagree).

    The verdicts cannot be trusted, so the exit code is the same as for an
    unusable input: never a pass.
    """
