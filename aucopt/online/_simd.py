"""Explicitly vectorized d² passes of :class:`~aucopt.online.OnePassAUC`'s kernels (numba intrinsics).

Private to :mod:`aucopt.online._onepass_full`. The full-covariance updates take two d² passes per
row: the product of a class's d × d matrix with the iterate, and the rows of the other class
added to its matrix. Written as numba loops, each pass runs one short loop per matrix row (or per
group of rows): at d = 22 each is a few vector operations between a loop entry, the compiler's
runtime checks that the written array does not overlap the others, and a store and reload, so the
loops ran at about a quarter of the machine's multiply-add rate. numba keeps scalar accumulators
in registers but does not vectorize them (they spill to the stack), and it offers no vector type;
so the passes are intrinsics that emit LLVM IR with ``<4 x double>`` values:

* :data:`scatter_product` (h = Σ_a M[a] w[a]): for each block of up to 24 result columns, one pass
  down the matrix rows adds ``M[a, block]·w[a]`` into up to six vector registers (twice: even and
  odd rows) with fused multiply-adds, and the block is stored once;
* :data:`add_rows` (M[a] += Σ_t D[t, a] D[t]): for each block of columns, the n ≤ 4 rows of D are
  held in registers while a pass down M's rows updates the block, each entry taking the rows in
  order, one fused multiply-add each, as the numba loop did (the same bits);
* :data:`symmetric_product` (h = (U + Uᵀ) w, U a symmetric matrix's upper triangle with its
  diagonal halved): the 4 × 4 tiles on and above the diagonal, stored packed row block by row block
  (:func:`packed_index`), are read once each, in one stream, each entering twice (``h[I] += T w[J]``
  into four vector registers, summed across at the end of the row block, and ``h[J] += Tᵀ w[I]``).

Measured on a 2-core AMD EPYC (AVX2), against numba's loops: the product in a loop, 35 against
70-100 ns at d = 22, 13 against 25-29 ns at d = 5, 1.4 against 2.4 µs at d = 123; the dense kernel
on ijcnn1 (d = 22), 126 against 199 ns a row with both (in one process, in turn; 1.5-1.6× in four
such runs). :data:`symmetric_product` reads half of a symmetric matrix (the CSR kernel's second
moments, 63 KB packed at d = 123, read from the L2 cache at every step): about 1.2× on a9a.

Every sum is taken in a fixed order, so a stream cut into chunks still takes the same steps to the
last bit. Where the machine has no fused multiply-add instruction, LLVM computes ``llvm.fma`` as
the C library's ``fma`` does (correct, slower). An edit of this module compiles the kernels that
call it again: aucopt keys their cache on every kernel module of the folder (:mod:`aucopt._numba`).
"""

from __future__ import annotations

from typing import Any

import llvmlite.ir as ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, register_jitable

__all__ = ["BLOCK", "GROUP", "add_rows", "packed_column", "packed_index", "packed_size", "row_blocks",
           "scatter_product", "symmetric_product"]

_LANES = 4  # doubles in one vector (an AVX2 register)
#: the vectors of result columns that one pass down the matrix rows accumulates in registers
BLOCK = 6
#: the most rows :data:`add_rows` adds in one pass
GROUP = 4
#: the vectors of M's columns that :data:`add_rows` updates per pass down its rows, by the number of
#: rows added: their n · (vectors) entries of D, the vectors of M and a broadcast fit the 16 AVX2 registers
_ROW_BLOCK = {1: 6, 2: 4, 3: 3, 4: 2}
_VEC = ir.VectorType(ir.DoubleType(), _LANES)
_I64 = ir.IntType(64)
_I32 = ir.IntType(32)


def _const(value: int) -> ir.Constant:
    return ir.Constant(_I64, value)


def _vector_at(builder: ir.IRBuilder, base: ir.Value, index: ir.Value) -> ir.Value:
    """A pointer to the ``<4 x double>`` starting at ``base[index]`` (8-byte alignment)."""
    return builder.bitcast(builder.gep(base, [index]), _VEC.as_pointer())


def _splat(builder: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """``x`` in every lane."""
    one = builder.insert_element(ir.Constant(_VEC, ir.Undefined), x, ir.Constant(_I32, 0))
    return builder.shuffle_vector(one, ir.Constant(_VEC, ir.Undefined), ir.Constant(ir.VectorType(_I32, _LANES),
                                                                                     [0] * _LANES))


def _block(builder: ir.IRBuilder, fma: ir.Function, M: ir.Value, width: ir.Value, w: ir.Value, h: ir.Value,
           d: ir.Value, col: ir.Value, n_vectors: int) -> None:
    """``h[col : col + 4·n_vectors] = Σ_{a < d} M[a, col : col + 4·n_vectors]·w[a]``, the even and the
    odd rows summed apart (two chains of d/2 dependent multiply-adds per vector instead of one of d,
    2-3 % of a row of the dense kernel at d = 22) and added at the end."""
    zero = ir.Constant(_VEC, [0.0] * _LANES)
    sums = [[cgutils.alloca_once_value(builder, zero) for _ in range(n_vectors)] for _ in range(2)]  # registers

    def add_row(a: ir.Value, into: list) -> None:
        wa = _splat(builder, builder.load(builder.gep(w, [a])))
        row = builder.gep(M, [builder.add(builder.mul(a, width), col)])
        for j, acc in enumerate(into):
            m = builder.load(_vector_at(builder, row, _const(_LANES * j)), align=8)
            builder.store(builder.call(fma, [m, wa, builder.load(acc)]), acc)

    with cgutils.for_range(builder, builder.sdiv(d, _const(2))) as loop:
        a = builder.mul(loop.index, _const(2))
        add_row(a, sums[0])
        add_row(builder.add(a, _const(1)), sums[1])
    with builder.if_then(builder.icmp_signed("!=", builder.srem(d, _const(2)), _const(0))):
        add_row(builder.sub(d, _const(1)), sums[0])
    for j in range(n_vectors):
        total = builder.fadd(builder.load(sums[0][j]), builder.load(sums[1][j]))
        builder.store(total, _vector_at(builder, h, builder.add(col, _const(_LANES * j))), align=8)


def _rows_block(builder: ir.IRBuilder, fma: ir.Function, M: ir.Value, width: ir.Value, D: ir.Value, n: int,
                d: ir.Value, col: ir.Value, n_vectors: int) -> None:
    """``M[a, block] ← M[a, block] + D[t, a]·D[t, block]`` for a < d, the rows t = 0 .. n − 1 one after
    the other (one fused multiply-add each), over the columns ``col : col + 4·n_vectors``; the block
    of each D row is held in registers."""
    rows = [builder.gep(D, [builder.add(builder.mul(_const(t), width), col)]) for t in range(n)]
    held = [[builder.load(_vector_at(builder, rows[t], _const(_LANES * j)), align=8) for j in range(n_vectors)]
            for t in range(n)]
    with cgutils.for_range(builder, d) as loop:
        row = builder.gep(M, [builder.add(builder.mul(loop.index, width), col)])
        targets = [_vector_at(builder, row, _const(_LANES * j)) for j in range(n_vectors)]
        sums = [builder.load(target, align=8) for target in targets]
        for t in range(n):
            factor = _splat(builder, builder.load(builder.gep(D, [builder.add(builder.mul(_const(t), width),
                                                                             loop.index)])))
            sums = [builder.call(fma, [factor, held[t][j], total]) for j, total in enumerate(sums)]
        for total, target in zip(sums, targets, strict=True):
            builder.store(total, target, align=8)


def _blocks(builder: ir.IRBuilder, width: ir.Value, n_vectors: int, emit: Any) -> None:
    """``emit(col, k)`` over the columns in blocks of ``n_vectors`` vectors, then over the remaining
    vectors one at a time (one more copy of the pass, not one per remainder: the kernels' compile
    time grows with every copy)."""
    span = _LANES * n_vectors
    n_blocks = builder.sdiv(width, _const(span))
    with cgutils.for_range(builder, n_blocks) as loop:
        emit(builder.mul(loop.index, _const(span)), n_vectors)
    if n_vectors > 1:
        start = builder.mul(n_blocks, _const(span))
        rest = builder.sdiv(builder.srem(width, _const(span)), _const(_LANES))
        with cgutils.for_range(builder, rest) as loop:
            emit(builder.add(start, builder.mul(loop.index, _const(_LANES))), 1)


def _fma(builder: ir.IRBuilder) -> ir.Function:
    return cgutils.get_or_insert_function(builder.module, ir.FunctionType(_VEC, [_VEC] * 3), "llvm.fma.v4f64")


def _float64_c(ty: Any, ndim: int) -> bool:
    return isinstance(ty, types.Array) and ty.dtype == types.float64 and ty.ndim == ndim and ty.layout == "C"


def _arguments(context: Any, builder: ir.IRBuilder, sig: Any, args: Any) -> tuple:
    """The width of the first argument (its last dimension) and every argument as the passes take it:
    an array's data pointer, an integer as it is."""
    values = [context.make_array(ty)(context, builder, value) if isinstance(ty, types.Array) else value
              for ty, value in zip(sig.args, args, strict=True)]
    width = cgutils.unpack_tuple(builder, values[0].shape, sig.args[0].ndim)[-1]
    return width, [value.data if isinstance(ty, types.Array) else value
                   for ty, value in zip(sig.args, values, strict=True)]


def _scatter_product(typingctx, M, w, h, d):  # pragma: no cover - compiled
    """The typing and code of :data:`scatter_product`: ``h[:W] = Σ_{a < d} M[a, :] w[a]`` for a
    C-contiguous float64 ``M`` of shape (≥ d, W), W a multiple of 4 (rows padded with zeros), and
    C-contiguous float64 vectors ``w`` (≥ d entries) and ``h`` (≥ W entries). With M symmetric over
    its first d columns, ``h[:d] = M[:d, :d] w[:d]``. Other argument types are not typed (None)."""
    def codegen(context, builder, sig, args):
        width, (data_M, data_w, data_h, d_value) = _arguments(context, builder, sig, args)
        fma = _fma(builder)
        _blocks(builder, width, BLOCK, lambda col, k: _block(builder, fma, data_M, width, data_w, data_h, d_value,
                                                              col, k))
        return context.get_dummy_value()

    if _float64_c(M, 2) and _float64_c(w, 1) and _float64_c(h, 1) and isinstance(d, types.Integer):
        return types.void(M, w, h, types.int64), codegen
    return None


#: ``scatter_product(M, w, h, d)``, callable from compiled code only: ``h[:W] = Σ_{a < d} M[a, :] w[a]``
#: (see :func:`_scatter_product`)
scatter_product: Any = intrinsic(_scatter_product)


def _add_rows(typingctx, M, D, n, d):  # pragma: no cover - compiled
    """The typing and code of :data:`add_rows`: ``M[a, :] ← M[a, :] + Σ_{t < n} D[t, a]·D[t, :]``
    for a < d, each entry taking the rows t = 0, 1, ... one after the other (one fused multiply-add
    each: the same bits as adding them one at a time), for C-contiguous float64 ``M`` (≥ d rows)
    and ``D`` (≥ n rows) of the same width, a multiple of 4, and 1 ≤ n ≤ :data:`GROUP` (others add
    nothing). Other argument types are not typed (None)."""
    if not (_float64_c(M, 2) and _float64_c(D, 2) and isinstance(n, types.Integer) and isinstance(d, types.Integer)):
        return None
    signature = types.void(M, D, types.int64, types.int64)

    def codegen(context, builder, sig, args):
        width, (data_M, data_D, n_value, d_value) = _arguments(context, builder, sig, args)
        fma = _fma(builder)
        for n in range(1, GROUP + 1):
            with builder.if_then(builder.icmp_signed("==", n_value, _const(n))):
                _blocks(builder, width, _ROW_BLOCK[n],
                        lambda col, k, n=n: _rows_block(builder, fma, data_M, width, data_D, n, d_value, col, k))
        return context.get_dummy_value()

    return signature, codegen


#: ``add_rows(M, D, n, d)``, callable from compiled code only: ``M[:d] += Σ_{t < n} D[t, :d, None] D[t]``
#: row by row (see :func:`_add_rows`)
add_rows: Any = intrinsic(_add_rows)


def _shuffle(builder: ir.IRBuilder, a: ir.Value, b: ir.Value, lanes: list[int]) -> ir.Value:
    """The vector of lanes ``lanes`` of ``a`` (0-3) and ``b`` (4-7)."""
    return builder.shuffle_vector(a, b, ir.Constant(ir.VectorType(_I32, _LANES), lanes))


def _horizontal_sums(builder: ir.IRBuilder, vectors: list) -> ir.Value:
    """The vector of the four vectors' sums (lane r: ``(v0 + v1) + (v2 + v3)`` of ``vectors[r]``),
    by two rounds of shuffles and vector additions: six instructions where extracting the lanes one
    by one took about thirty (5-10 % of :data:`symmetric_product` at d = 64 to 123)."""
    a, b, c, d = vectors
    pairs_ab = builder.fadd(_shuffle(builder, a, b, [0, 4, 2, 6]), _shuffle(builder, a, b, [1, 5, 3, 7]))
    pairs_cd = builder.fadd(_shuffle(builder, c, d, [0, 4, 2, 6]), _shuffle(builder, c, d, [1, 5, 3, 7]))
    return builder.fadd(_shuffle(builder, pairs_ab, pairs_cd, [0, 1, 4, 5]),
                        _shuffle(builder, pairs_ab, pairs_cd, [2, 3, 6, 7]))


@register_jitable
def row_blocks(d: int) -> int:
    """⌈d/4⌉: the blocks of four rows (one vector each) that d rows take, the last padded with zeros."""
    return (d + _LANES - 1) // _LANES


@register_jitable
def packed_size(d: int) -> int:
    """The length of :data:`symmetric_product`'s packed tiles for d rows and columns: 16 doubles for
    each of the nb (nb + 1) / 2 tiles on and above the diagonal, nb = :func:`row_blocks` (d)."""
    nb = row_blocks(d)
    return _LANES * _LANES * nb * (nb + 1) // 2


@register_jitable
def packed_index(a: int, b: int, nb: int) -> int:
    """The place of entry (a, b), a ≤ b (or a, b in one diagonal tile), in the packed tiles of
    :data:`symmetric_product`: row block i = a // 4 starts after the tiles of the blocks above it,
    16 (i nb − i (i − 1) / 2), its tile j = b // 4 is the (j − i)-th there, and the tile is row-major."""
    i, j = a >> 2, b >> 2
    return _LANES * _LANES * (i * nb - (i * (i - 1)) // 2 + j - i) + ((a & 3) << 2) + (b & 3)


@register_jitable
def packed_column(b: int) -> int:
    """The part of :func:`packed_index` that depends on b alone: ``packed_index(a, b, nb) =
    packed_index(a, a, nb) − packed_column(a) + packed_column(b)`` for a ≤ b, so that the pairs of
    one row a take one addition each."""
    return _LANES * _LANES * (b >> 2) + (b & 3)


def _symmetric_product(typingctx, P, w, h, d):  # pragma: no cover - compiled
    """The typing and code of :data:`symmetric_product`: ``h[:W] = (U + Uᵀ) w`` (W = 4 nb, nb = ⌈d/4⌉)
    for U a symmetric matrix's upper triangle with its diagonal halved, zero-padded to W rows and
    columns, given as ``P``: its nb (nb + 1) / 2 tiles of 4 × 4 on and above the diagonal, row block
    by row block, each row-major (16 doubles; entry (a, b) at :func:`packed_index`; zero below the
    diagonal of the diagonal tiles). ``P``, ``w`` and ``h`` (≥ W entries) are C-contiguous float64
    vectors. The tiles are read in one stream, once each, every tile T entering twice (``h[I] += T
    w[J]`` and ``h[J] += Tᵀ w[I]``): half the reads of the full matrix, and 12-23 % faster at d = 123
    than the same tiles read from the square array (four rows' streams; about the same at d = 22).
    Other argument types are not typed."""
    if not (_float64_c(P, 1) and _float64_c(w, 1) and _float64_c(h, 1) and isinstance(d, types.Integer)):
        return None
    signature = types.void(P, w, h, types.int64)

    def codegen(context, builder, sig, args):
        _, (data_P, data_w, data_h, d_value) = _arguments(context, builder, sig, args)
        fma = _fma(builder)
        four = _const(_LANES)
        zero = ir.Constant(_VEC, [0.0] * _LANES)
        nb = builder.sdiv(builder.add(d_value, _const(_LANES - 1)), four)
        with cgutils.for_range(builder, nb) as loop:
            builder.store(zero, _vector_at(builder, data_h, builder.mul(loop.index, four)), align=8)
        tile_start = cgutils.alloca_once_value(builder, _const(0))
        with cgutils.for_range(builder, nb) as rows_loop:
            a0 = builder.mul(rows_loop.index, four)
            w_rows = [_splat(builder, builder.load(builder.gep(data_w, [builder.add(a0, _const(r))])))
                      for r in range(_LANES)]
            dots = [cgutils.alloca_once_value(builder, zero) for _ in range(_LANES)]
            with cgutils.for_range_slice(builder, rows_loop.index, nb, _const(1)) as (jb, _):
                j0 = builder.mul(jb, four)
                start = builder.load(tile_start)
                tile = [builder.load(_vector_at(builder, data_P, builder.add(start, _const(_LANES * r))), align=8)
                        for r in range(_LANES)]
                builder.store(builder.add(start, _const(_LANES * _LANES)), tile_start)
                w_cols = builder.load(_vector_at(builder, data_w, j0), align=8)
                for t, acc in zip(tile, dots, strict=True):
                    builder.store(builder.call(fma, [t, w_cols, builder.load(acc)]), acc)
                target = _vector_at(builder, data_h, j0)
                h_cols = builder.load(target, align=8)
                for t, wr in zip(tile, w_rows, strict=True):
                    h_cols = builder.call(fma, [t, wr, h_cols])
                builder.store(h_cols, target, align=8)
            target = _vector_at(builder, data_h, a0)
            sums = _horizontal_sums(builder, [builder.load(acc) for acc in dots])
            builder.store(builder.fadd(builder.load(target, align=8), sums), target, align=8)
        return context.get_dummy_value()

    return signature, codegen


#: ``symmetric_product(P, w, h, d)``, callable from compiled code only: ``h[:W] = (U + Uᵀ) w`` from the
#: packed tiles of U on and above the diagonal (see :func:`_symmetric_product`)
symmetric_product: Any = intrinsic(_symmetric_product)
