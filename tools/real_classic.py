"""The classic machine-learning families of the real-export corpus.

skl2onnx: k-nearest neighbours, SVC (no probability) and SVR, KMeans,
IsolationForest, a LabelEncoder on strings, a ColumnTransformer one-hot
encoding a string column beside a numeric one, and a DictVectorizer whose input
is ``map(string -> float)``. onnxmltools: a LightGBM classifier and an XGBoost
regressor. Seeded data, small estimators; ``tools/make_real_models.py`` calls
:func:`export_classic`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import onnx

Describe = Callable[[Path, str], dict[str, Any]]

OPSETS = {"": 17, "ai.onnx.ml": 3}


def _numeric(describe: Describe, out: Path, wanted: Callable[[str], bool]) -> list[dict[str, Any]]:
    import sklearn
    from skl2onnx import to_onnx
    from sklearn.cluster import KMeans
    from sklearn.ensemble import IsolationForest
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.svm import SVC, SVR

    rng = np.random.default_rng(1)
    x = rng.standard_normal((48, 4)).astype(np.float32)
    y = (x[:, 0] - x[:, 2] > 0).astype(np.int64) + (x[:, 1] > 0.8).astype(np.int64)
    reg = (x[:, 0] * 1.5 - x[:, 3]).astype(np.float32)
    cases: dict[str, tuple[Any, Any, dict[str, Any] | None]] = {
        "sk_knn": (KNeighborsClassifier(n_neighbors=3), y, {"zipmap": False}),
        "sk_svc": (SVC(C=1.0, kernel="rbf", probability=False, random_state=0), y, {"zipmap": False}),
        "sk_svr": (SVR(C=1.0, kernel="rbf"), reg, None),
        "sk_kmeans": (KMeans(n_clusters=3, n_init=2, random_state=0), None, None),
        "sk_isolation_forest": (IsolationForest(n_estimators=4, max_samples=16, random_state=0), None, None),
    }
    written = []
    for name, (estimator, target, options) in cases.items():
        path = out / f"{name}.skl2onnx.onnx"
        if not wanted(path.name):
            continue
        estimator.fit(x) if target is None else estimator.fit(x, target)
        kwargs: dict[str, Any] = {"target_opset": dict(OPSETS)}
        if options is not None:
            kwargs["options"] = {id(estimator): options}
        onnx.save(to_onnx(estimator, x[:1], **kwargs), str(path))
        written.append(describe(path, f"scikit-learn {sklearn.__version__}"))
        print(f"wrote {path}", flush=True)
    return written


def _strings_and_maps(describe: Describe, out: Path, wanted: Callable[[str], bool]) -> list[dict[str, Any]]:
    import sklearn
    from skl2onnx import convert_sklearn
    from skl2onnx.common.data_types import DictionaryType, FloatTensorType, StringTensorType
    from sklearn.compose import ColumnTransformer
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import LabelEncoder, OneHotEncoder, StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(2)
    colours = np.array(["red", "green", "blue", "violet"])
    words = colours[rng.integers(0, 4, 40)]
    amount = rng.standard_normal(40).astype(np.float32)
    label = ((words == "red") | (amount > 0.5)).astype(np.int64)
    written = []
    producer = f"scikit-learn {sklearn.__version__}"

    path = out / "sk_label_encoder.skl2onnx.onnx"
    if wanted(path.name):
        encoder = LabelEncoder().fit(words)
        onx = convert_sklearn(encoder, initial_types=[("colour", StringTensorType([None]))], target_opset=OPSETS)
        onnx.save(onx, str(path))
        written.append(describe(path, producer))

    path = out / "sk_string_columns.skl2onnx.onnx"
    if wanted(path.name):
        columns = ColumnTransformer([("onehot", OneHotEncoder(handle_unknown="ignore"), ["colour"]),
                                     ("scale", StandardScaler(), ["amount"])])
        pipe = make_pipeline(columns, LogisticRegression())
        import pandas as pd

        frame = pd.DataFrame({"colour": words, "amount": amount})
        pipe.fit(frame, label)
        onx = convert_sklearn(pipe, initial_types=[("colour", StringTensorType([None, 1])),
                                                   ("amount", FloatTensorType([None, 1]))],
                              target_opset=OPSETS, options={id(pipe.steps[-1][1]): {"zipmap": False}})
        onnx.save(onx, str(path))
        written.append(describe(path, producer))

    path = out / "sk_dict_vectorizer.skl2onnx.onnx"
    if wanted(path.name):
        records = [{str(w): float(a), "bias": 1.0} for w, a in zip(words, amount, strict=True)]
        pipe = make_pipeline(DictVectorizer(sparse=False), DecisionTreeClassifier(max_depth=3, random_state=0))
        pipe.fit(records, label)
        onx = convert_sklearn(pipe, initial_types=[("features", DictionaryType(StringTensorType([]),
                                                                                FloatTensorType([])))],
                              target_opset=OPSETS, options={id(pipe.steps[-1][1]): {"zipmap": False}})
        onnx.save(onx, str(path))
        written.append(describe(path, producer))
    for entry in written:
        print(f"wrote {out / entry['file']}", flush=True)
    return written


def _boosters(describe: Describe, out: Path, wanted: Callable[[str], bool]) -> list[dict[str, Any]]:
    import lightgbm
    import onnxmltools
    import xgboost
    from onnxmltools.convert.common.data_types import FloatTensorType

    rng = np.random.default_rng(3)
    x = rng.standard_normal((64, 5)).astype(np.float32)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.int64)
    reg = (x[:, 2] * 2.0 - x[:, 4]).astype(np.float32)
    written = []
    kind = [("input", FloatTensorType([None, 5]))]
    path = out / "lgbm_classifier.onnxmltools.onnx"
    if wanted(path.name):
        clf = lightgbm.LGBMClassifier(n_estimators=4, num_leaves=4, min_child_samples=4, random_state=0,
                                      verbose=-1).fit(x, y)
        onx = onnxmltools.convert_lightgbm(clf, initial_types=kind, target_opset=15, zipmap=False)
        onnx.save(onx, str(path))
        written.append(describe(path, f"lightgbm {lightgbm.__version__}, onnxmltools {onnxmltools.__version__}"))
    path = out / "xgb_regressor.onnxmltools.onnx"
    if wanted(path.name):
        model = xgboost.XGBRegressor(n_estimators=4, max_depth=3, random_state=0).fit(x, reg)
        onx = onnxmltools.convert_xgboost(model, initial_types=kind, target_opset=15)
        onnx.save(onx, str(path))
        written.append(describe(path, f"xgboost {xgboost.__version__}, onnxmltools {onnxmltools.__version__}"))
    for entry in written:
        print(f"wrote {out / entry['file']}", flush=True)
    return written


def export_classic(out: Path, describe: Describe, wanted: Callable[[str], bool]) -> list[dict[str, Any]]:
    """Export every classic model whose file name ``wanted`` accepts."""
    return _numeric(describe, out, wanted) + _strings_and_maps(describe, out, wanted) + _boosters(describe, out, wanted)
