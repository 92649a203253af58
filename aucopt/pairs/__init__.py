"""Pair sets and the sorted-pair core.

A :class:`PairSet` says which (i, j) must satisfy f(x_i) > f(x_j) and with what weight. Its
``target`` says what the pairs mean (``"bipartite"``: positives over negatives; ``"survival"``:
Harrell's comparable pairs; ``"multipartite"``: higher ordinal levels over lower ones;
``"custom"``: any list) and its ``storage`` how they are held
(``"sorted"``: an ordered-suffix structure, never listed; ``"explicit"``: index arrays).
:mod:`aucopt.pairs.core` evaluates pairwise losses, gradients, Hessian products and pair counts
over any pair set in O(m log m) for sorted storage.

A new kind of pair set is a new constructor here returning one of the two storages.

Besides ``__all__``, the helpers other subpackages share are public here: :func:`check_groups`
(per-point group indices), :func:`ordinal_codes` (dense codes of ordinal labels),
:func:`time_order` (the stable order of survival times, by packed integer keys for large n),
:func:`reordered` (``v[order]``, on two threads for large n) and :data:`CAPPED_FLOOR` (the floor
of the ``"capped"`` time weight).
"""

from ._labels import check_groups as check_groups  # public, outside __all__: shared with aucopt.base
from ._labels import ordinal_codes as ordinal_codes  # shared with aucopt.metrics
from ._pairset import PairSet
from ._storage import BYTES_PER_PAIR, DEFAULT_MAX_BYTES
from ._survival import CAPPED_FLOOR as CAPPED_FLOOR
from ._survival import SURVIVAL_VARIANTS, TIME_WEIGHTS, survival_pair_arrays
from ._survival import reordered as reordered  # shared with aucopt._breslow
from ._survival import time_order as time_order  # shared with aucopt._breslow

__all__ = [
    "BYTES_PER_PAIR",
    "DEFAULT_MAX_BYTES",
    "SURVIVAL_VARIANTS",
    "TIME_WEIGHTS",
    "PairSet",
    "survival_pair_arrays",
]
