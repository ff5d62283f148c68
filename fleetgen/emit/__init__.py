"""Emitters: one module per target behind one Protocol, and the registry that picks them.

An emitter translates the Plan; it never decides placement. Its ``check`` reports what its
engine cannot express (engine-specific spec errors), before anything is emitted; its
``warnings`` what it accepts but cannot fully honour. Adding a target is one module (or
package) with these three functions and one line in `ALWAYS` or `ENGINES`.
"""

from fleetgen.emit.registry import (
    ALWAYS,
    ENGINES,
    Emitter,
    check,
    emit,
    emit_each,
    emitters_for,
    warnings,
)

__all__ = ["ALWAYS", "ENGINES", "Emitter", "check", "emit", "emit_each", "emitters_for", "warnings"]
