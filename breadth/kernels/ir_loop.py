"""The head of a counted loop in LLVM IR, for the intrinsics that build their own loops (``lanes``, ``rows8``)."""

__all__ = ["loop_head"]


def loop_head(builder, name, start, limit, acc_start, inner=()):
    """Open ``for (i = start, acc = acc_start; i < limit; ...)``: the blocks ``name.head``,
    ``name.body``, one per name in ``inner`` (for the body's own branches, in that order) and
    ``name.done``; in the head a phi for the counter and one for the accumulator (their entry
    values added; the caller adds the back edges), and the branch to body or done. Leaves the
    builder in the body; returns (counter, accumulator, {block name: block}), with "head" and
    "done" among the blocks."""
    entry = builder.block
    blocks = {part: builder.append_basic_block(f"{name}.{part}") for part in ("head", "body", *inner, "done")}
    builder.branch(blocks["head"])
    builder.position_at_end(blocks["head"])
    i = builder.phi(start.type)
    acc = builder.phi(acc_start.type)
    i.add_incoming(start, entry)
    acc.add_incoming(acc_start, entry)
    builder.cbranch(builder.icmp_signed("<", i, limit), blocks["body"], blocks["done"])
    builder.position_at_end(blocks["body"])
    return i, acc, blocks
