#!/usr/bin/env bash
# TextAttack in its own virtual environment, for perf/bench_vs_textattack.py (CPU, Python 3.11).
#
#   bash perf/install_textattack.sh [VENV]          (default ~/.cache/robust-bench/textattack-venv)
#
# What it had to do, and why:
# * `pip install textattack` does not install on Python 3.11: it pins an old scikit-learn that must
#   compile. So textattack 0.3.11 (the newest) goes in with --no-deps, and then exactly what its
#   imports need (found by importing it and the classes the bench uses until clean).
# * textattack imports flair unconditionally; flair 0.15.1 needs transformers < 5, hence
#   transformers 4.57.6, which needs huggingface-hub < 1, hence datasets 5.0.1.
# * torch first and pinned (2.13.0, the local CPU wheel); a bare `torch` pulls CUDA wheels.
# * WordNet and the stopwords come from NLTK_DATA (../shared/nltk_data here). Creating
#   WordSwapWordNet calls nltk.download("omw-1.4"), which fails offline with one
#   "[nltk_data] Error loading omw-1.4" line and is otherwise harmless.
set -euo pipefail
V="${1:-$HOME/.cache/robust-bench/textattack-venv}"
PY="${PYTHON:-python3}"
export NLTK_DATA="${NLTK_DATA:-$(cd "$(dirname "$0")/../.." && pwd)/shared/nltk_data}"

rm -rf "$V"
"$PY" -m venv "$V"
P="$V/bin/pip"
"$P" install --upgrade pip
"$P" install torch==2.13.0
"$P" install --no-deps textattack==0.3.11 flair==0.15.1
"$P" install torch==2.13.0 transformers==4.57.6 tokenizers==0.22.2 numpy==2.4.6 \
  nltk==3.10.4 requests==2.34.2 \
  jieba==0.42.1 lru-dict==1.4.1 Levenshtein==0.27.5 pandas==3.1.1 pinyin==0.4.0 OpenHowNet==2.0 \
  lemminflect==0.2.3 num2words==0.5.14 word2number==1.1 language_tool_python==3.4.0 \
  bert-score==0.3.13 editdistance==0.8.1 datasets==5.0.1 more-itertools==11.2.1 \
  terminaltables==3.1.10 tqdm==4.70.1 scipy==1.17.1 \
  boto3==1.44.5 Deprecated==1.3.1 segtok==1.5.11 scikit-learn==1.9.1 sentencepiece==0.2.3 \
  ftfy==6.3.1 lxml==6.1.3 bioc==2.1 gdown==6.5.1 conllu==4.5.3 \
  transformer-smaller-training-vocab==0.4.2 langdetect==1.0.9

# smoke test: the classes the bench uses, and a WordNet lookup
cd /tmp
"$V/bin/python" - <<'PYEOF'
from textattack import Attack
from textattack.constraints.pre_transformation import InputColumnModification, RepeatModification, StopwordModification
from textattack.goal_functions import UntargetedClassification
from textattack.models.wrappers import HuggingFaceModelWrapper
from textattack.search_methods import GreedyWordSwapWIR
from textattack.transformations import WordSwapWordNet
assert WordSwapWordNet()._get_replacement_words("quick"), "WordNet returned no synonyms: is NLTK_DATA set?"
print("TextAttack ready")
PYEOF
echo "TEXTATTACK_PYTHON=$V/bin/python"
