"""A runtime that crashes on the model is an oracle that failed to run, not the end of the check.

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


def test_a_crashing_oracle_fails_to_run_and_the_other_oracle_still_runs() -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", PLANTED, str(EXAMPLES / "cnn_block.onnx")],
        capture_output=True, text=True, timeout=300, env=env, check=False,
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-500:])
    (ref_name, ref_status, ref_message, _), (ort_name, ort_status, _, ort_outcome) = json.loads(done.stdout)
    assert (ref_name, ref_status) == ("reference", "failed to run")
    assert "SIGSEGV" in ref_message and "child process" in ref_message, ref_message
    assert (ort_name, ort_status, ort_outcome) == ("onnxruntime", "ran", "AGREE")
