"""One ``sonnx partition`` job: produce a partition or read one, then verify it (and run it, when asked).

The verification always covers the partition's structure (:mod:`.verify`).
``execute`` adds the partitioned run against the whole model on one input
set, ``fused`` writes the fused ONNX model and tests it; both only run on a
partition whose cover, boundaries and fused acyclicity are proved, and are
UNKNOWN otherwise.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ..base.errors import InputError, InputSizeError, SonnxError, UsageError
from ..base.progress import Say, quiet
from ..base.verdict import Status, Verdict
from ..execution.inputs import read_inputs
from ..loader import load_model
from ..model.graph import Model
from ..rules.graph_function_shadowing import refuse_shadowing
from .algorithm import DEFAULT_DEVICE, Provider, make_partition
from .fused import EXEC, FUSED, exec_verdict, fused_verdict
from .schema import Partition, load_partition
from .verify import ACYCLIC, COVER, INPUTS, OUTPUTS, PartitionReport, check_partition
from .verify import TITLES as CHECK_TITLES

TITLES = {
    **CHECK_TITLES,
    EXEC: "the partitioned run gives the whole model's outputs bit for bit",
    FUSED: "the fused ONNX model is valid and behaves as the whole model",
}
"""The title of every verdict a partition job can give."""


def _run_verdicts(
    model: Model, partition: Partition, report: PartitionReport, execute: bool, fused: str | None,
    seed: int, inputs: str | None,
) -> list[Verdict]:
    """EXEC and FUSED, when asked for, on a partition whose structure is proved (UNKNOWN otherwise)."""
    if not (execute or fused):
        return []
    status = {v.rule_id: v.status for v in report.verdicts}
    if any(status.get(r) is not Status.PROVED for r in (COVER, INPUTS, OUTPUTS, ACYCLIC)):
        why = "not run: the subgraphs are not an acyclic partition with exact boundaries"
        return [Verdict.unknown(rule, why, engine="executor") for rule, asked in ((EXEC, execute), (FUSED, fused))
                if asked]
    feeds: dict[str, Any] | None = None
    what = ""
    out = []
    if execute:
        try:
            given = read_inputs(model, inputs, [], seed)
        except (InputError, UsageError, InputSizeError):
            raise  # an unreadable --inputs file, or a declared size no input can have: the run is unusable
        except SonnxError as exc:  # an input the model declares too little about to draw: not established
            out.append(Verdict.unknown(EXEC, f"no inputs to run on: {exc.one_line()}", engine="executor"))
        else:
            feeds, what = given.values, given.source.describe()
            out.append(exec_verdict(model, partition, feeds, what))
    if fused:
        out.append(fused_verdict(model, partition, fused, feeds, what))
    return out


def partition_job(
    model_path: str,
    partition_file: str | None = None,
    providers: Sequence[Provider] = (),
    default: str = DEFAULT_DEVICE,
    partition_name: str = "<stdout>",
    execute: bool = False,
    fused: str | None = None,
    seed: int = 0,
    inputs: str | None = None,
    progress: Say | None = None,
) -> tuple[Partition, PartitionReport]:
    """Read ``partition_file`` (or make one for ``providers``) for the model at ``model_path``; verify it.

    ``partition_name`` names a produced partition in the report (where it will be written).
    """
    say = progress or quiet
    say(f"loading {model_path}")
    model = load_model(model_path)
    refuse_shadowing(model)  # a provider would run the standard operator where sonnx inlines the function
    if partition_file is not None:
        partition = load_partition(partition_file)
        partition_name = partition_file
    else:
        say(f"partitioning {len(model.graph.operations)} operations for {len(providers)} provider(s)")
        made = make_partition(model, list(providers), default)
        partition = Partition(made.subgraphs, os.path.basename(model_path))
    report = check_partition(model, partition, model_name=model_path, partition_name=partition_name, progress=say)
    if execute or fused:
        say("executing the partitioned model" + (" and writing the fused model" if fused else ""))
    report.verdicts.extend(_run_verdicts(model, partition, report, execute, fused, seed, inputs))
    say("done")
    return partition, report
