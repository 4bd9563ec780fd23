"""Partitions of a model across execution providers (seeds 003 and 004): produce, verify, run, write.

* :mod:`.schema`: the partition model (seed 003's fields) and its JSON form;
* :mod:`.structure`: node names, dependency edges, true subgraph boundaries;
* :mod:`.algorithm`: the structural, deterministic partitioner (seed 004);
* :mod:`.verify`: the checks, acyclicity of the fused graph proved with z3;
* :mod:`.fused`: partitioned execution and the fused ONNX model;
* :mod:`.ort`: onnxruntime's node-to-provider assignment as a partition.
"""

from __future__ import annotations

from .algorithm import DEFAULT_DEVICE, Provider, make_partition
from .fused import DOMAIN, exec_verdict, execute_partitioned, fused_model, write_fused
from .schema import Partition, PartitionFormatError, Subgraph, load_partition, partition_from_json, save_partition
from .structure import NodeIndex, PartitionModelError, node_key
from .verify import PartitionReport, check_partition

__all__ = [
    "DEFAULT_DEVICE",
    "DOMAIN",
    "NodeIndex",
    "Partition",
    "PartitionFormatError",
    "PartitionModelError",
    "PartitionReport",
    "Provider",
    "Subgraph",
    "check_partition",
    "exec_verdict",
    "execute_partitioned",
    "fused_model",
    "load_partition",
    "make_partition",
    "node_key",
    "partition_from_json",
    "save_partition",
    "write_fused",
]
