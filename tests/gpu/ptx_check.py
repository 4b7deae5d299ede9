"""Compile every GPU kernel to PTX for real GPUs (no GPU needed, but NVVM must be installed).

Run as ``python tests/gpu/ptx_check.py`` with ``NUMBA_ENABLE_CUDASIM`` unset in an
environment with ``numba-cuda[cu12]`` (or a CUDA toolkit); prints one line per
kernel and exits 1 if any fails to compile, 3 when NVVM is not available.
``test_ptx.py`` runs it when it can. This checks numba's typing of the kernels
and code generation for sm_80/sm_90, which the simulator never does.
"""
import sys

from numba import cuda, types


def kernels():
    from breadth.gpu import bottom_up as bu
    from breadth.gpu import depth_matrix as dm
    from breadth.gpu import dist_kernels as dk
    from breadth.gpu import ibfs_kernels as ib
    from breadth.gpu import lrb
    from breadth.gpu import primitives as pr
    from breadth.gpu import validate as vl

    i64, u32, u64 = types.int64, types.uint32, types.uint64
    a64 = types.Array(i64, 1, "C")
    w32 = types.Array(u32, 1, "C")
    w64 = types.Array(u64, 1, "C")
    b1 = types.Array(types.boolean, 1, "C")
    for vid in (types.int32, types.int64):
        q = types.Array(vid, 1, "C")
        yield f"ib_init[{vid}]", ib.ib_init, (a64, w64, w64, w64, w32, w32, i64, a64, i64)
        yield f"ib_seed[{vid}]", ib.ib_seed, (a64, i64, w64, w32, q, a64, i64)
        yield f"ib_td[{vid}]", ib.ib_td, (a64, q, i64, w64, w64, q, i64, w32, q, a64, i64)
        yield f"ib_bu[{vid}]", ib.ib_bu, (a64, q, i64, w64, w64, w64, w32, w32, i64, a64, i64, i64, w64)
        for dt in (types.uint8, types.uint16, types.int64):
            dep = types.Array(dt, 1, "C")
            yield (f"ib_identify_sparse[{vid},{dt}]", ib.ib_identify_sparse,
                   (a64, a64, i64, w64, w64, w32, q, i64, dep, i64, types.boolean, a64, i64, i64))
            yield (f"ib_identify_dense[{vid},{dt}]", ib.ib_identify_dense,
                   (a64, a64, i64, w64, w64, w32, w32, w64, i64, i64, dep, i64, types.boolean, a64, i64, i64))
        td = (a64, q, a64, a64, i64, q) + (i64,) * 9 + (q, a64, i64, i64)
        yield f"td_lrb[{vid}]", lrb.td_lrb, td
        yield f"rep_td[{vid}]", dk.rep_td, td
        yield f"rep_bu[{vid}]", dk.rep_bu, (a64, q, i64, a64, w32, i64, a64, q, a64, i64)
        yield f"set_levels[{vid}]", dk.set_levels, (q, i64, a64, i64)
        yield f"merge_ids[{vid}]", dk.merge_ids, (q, i64, a64, i64, q, a64, i64)
        yield f"owned_frontier[{vid}]", dk.owned_frontier, (q, i64, i64, q, a64, q, a64, i64)
        yield f"lrb_scatter[{vid}]", lrb.lrb_scatter, (a64, q, i64, q, a64, i64)
        yield f"bu_step[{vid}]", bu.bu_step, (a64, a64, q, a64, a64, w32, w32, w32, w32, i64, i64, a64, i64, i64)
        yield f"seed[{vid}]", bu.seed, (a64, a64, a64, a64, q, a64)
        yield f"queue_to_bitmap[{vid}]", bu.queue_to_bitmap, (q, i64, w32)
        yield f"bitmap_to_queue[{vid}]", bu.bitmap_to_queue, (w32, q, a64, i64)
        yield f"fill_search[{vid}]", bu.fill_search, (a64, a64, a64, q, a64, i64)
        yield f"validate._vertex_rules[{vid}]", vl._vertex_rules, (a64, q, a64, a64, a64, b1, types.boolean, a64, i64)
        yield f"validate._hub_chunks[{vid}]", vl._hub_chunks, (a64, a64, a64, q, a64, a64, types.boolean, a64, a64)
    yield "validate._start", vl._start, (a64, a64, b1, a64)
    yield "validate._seed", vl._seed, (a64, a64, a64, b1, a64)
    yield "validate._derive", vl._derive, (a64, a64, i64, a64)
    yield "validate._hub_edge_rule", vl._hub_edge_rule, (a64, a64, a64, b1, a64)
    u8, u16 = types.uint8, types.uint16
    yield "place_block[uint8]", dm.place_block, (types.Array(u8, 2, "C"), a64, types.Array(u8, 1, "C"), i64, i64,
                                                 u8, u8)
    yield "widen_matrix[uint8->uint16]", dm.widen_matrix, (types.Array(u16, 2, "C"), types.Array(u8, 2, "C"), i64,
                                                            i64, u8, u16)
    yield "fill_words", bu.fill_words, (w32, u32)
    yield "bitmaps_from_depth", bu.bitmaps_from_depth, (a64, i64, w32, w32, w32, w32, i64)
    yield "in_degree_zero_words", bu.in_degree_zero_words, (a64, i64, w32)
    yield "zero_int64", pr.zero_int64, (a64,)
    yield "fill_any[uint8]", ib.fill_any, (types.Array(types.uint8, 1, "C"), types.uint8)


def main() -> int:
    try:
        cuda.compile_ptx(lambda: None, (), device=True, cc=(8, 0))
    except Exception as exc:  # noqa: BLE001 - no NVVM here
        print(f"NVVM not available: {exc}")
        return 3
    failed = 0
    for cc in ((8, 0), (9, 0)):
        # device functions are compiled for "the current device": pretend one of this capability
        import numba.cuda.dispatcher as dispatcher

        dispatcher.get_current_device = lambda cc=cc: type("FakeDevice", (), {"compute_capability": cc})()
        for name, kernel, sig in kernels():
            try:
                cuda.compile_ptx(kernel.py_func, sig, cc=cc)
                print(f"ok   {name} sm_{cc[0]}{cc[1]}")
            except Exception as exc:  # noqa: BLE001 - report every failure
                failed += 1
                print(f"FAIL {name} sm_{cc[0]}{cc[1]}: {type(exc).__name__}: {str(exc)[:2000]}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
