"""A runtime that crashes on the model is a runtime that failed, not the end of the check.

The crash is planted (the reference oracle kills its own process with SIGSEGV)
and the whole cross-check runs in a subprocess, so that a run in this
process, as it was before the oracles were contained, fails the test instead of
taking pytest down.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.common.cli import EXAMPLES, ROOT

PLANTED = """
import json, os, signal, sys
from sonnx.differential import oracles
from sonnx.differential.run import cross_check
oracles.RUNNERS["reference"] = lambda proto, feeds: os.kill(os.getpid(), signal.SIGSEGV)
report = cross_check(sys.argv[1])
print(json.dumps([[r.run.name, r.run.status, r.run.message, r.outcome] for r in report.results]))
"""


def _child(code: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", code, str(EXAMPLES / "cnn_block.onnx")],
        capture_output=True, text=True, timeout=300, env=env, check=False,
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-500:])
    return done


def test_a_crashing_oracle_fails_to_run_and_the_other_oracle_still_runs() -> None:
    done = _child(PLANTED)
    (ref_name, ref_status, ref_message, _), (ort_name, ort_status, _, ort_outcome) = json.loads(done.stdout)
    assert (ref_name, ref_status) == ("reference", "failed to run")
    assert "SIGSEGV" in ref_message and "child process" in ref_message, ref_message
    assert (ort_name, ort_status, ort_outcome) == ("onnxruntime", "ran", "AGREE")


REWRITE = """
import os, signal, sys
import onnxruntime
from sonnx.execution.inputs import random_inputs
from sonnx.loader import load_model
from sonnx.rewrite.runtime import runtime_check
onnxruntime.InferenceSession = lambda *a, **k: os.kill(os.getpid(), signal.SIGSEGV)
model = load_model(sys.argv[1])
print(runtime_check(model, model, random_inputs(model, 0)).line())
"""

PARTITION = """
import os, signal, sys
import onnxruntime
from sonnx.partition.ort import OrtError, ort_assignment
onnxruntime.InferenceSession = lambda *a, **k: os.kill(os.getpid(), signal.SIGSEGV)
try:
    ort_assignment(sys.argv[1])
except OrtError as exc:
    print(exc.one_line())
"""


def test_a_crashing_onnxruntime_is_an_input_it_refused_in_rewrite() -> None:
    out = _child(REWRITE).stdout
    assert out.startswith("onnxruntime check: input refused") and "SIGSEGV" in out, out


def test_a_crashing_onnxruntime_is_an_ort_error_in_partition() -> None:
    out = _child(PARTITION).stdout
    assert out.startswith("onnxruntime was killed by signal SIGSEGV") and "child process" in out, out
