"""How a classifier is trained: settings, the loop, heads on frozen features, fine-tuning, the trained store.

Lowest first:

- :mod:`~mtlib.models.training.logistic`, :mod:`~mtlib.models.training.baseline`: the exact logistic solver, the
  majority-class baseline;
- :mod:`~mtlib.models.training.loop`: the one seeded training loop (batches, early stopping);
- :mod:`~mtlib.models.training.heads`: the head estimators (linear, MLP) and pair features;
- :mod:`~mtlib.models.training.settings`: what a classifier is asked to be and how it came about;
- :mod:`~mtlib.models.training.resolved`: one request resolved (every default applied) and its cache key;
- :mod:`~mtlib.models.training.labelled`, :mod:`~mtlib.models.training.store`: labelled texts parsed once, the
  cache of trained classifiers;
- :mod:`~mtlib.models.training.frozen`: heads trained on frozen features (a
  model's ``embed``, or any feature matrix);
- :mod:`~mtlib.models.training.networks`, :mod:`~mtlib.models.training.finetune`,
  :mod:`~mtlib.models.training.siamese`: the trainable networks, fine-tuning them, the siamese matrix form;
- :mod:`~mtlib.models.training.pair_matrix`: a frozen head's predictions on every ordered word pair, in matrix form;
- :mod:`~mtlib.models.training.native`: a model's own classification head as a classifier;
- :mod:`~mtlib.models.training.prompt`: a causal language model as a classifier by prompting, calibrated.
"""

from mtlib.utils.faces import Face

_face = Face(
    __name__,
    {
        "logistic": [],
        "baseline": [],
        "loop": [],
        "heads": [],
        "settings": [],
        "resolved": [],
        "labelled": [],
        "store": [],
        "frozen": [],
        "networks": [],
        "finetune": [],
        "siamese": [],
        "pair_matrix": [],
        "native": [],
        "prompt": [],
    },
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
