"""``ffo map``: draw the map as a PNG (``--png PATH [--scale S]``) or as text (``--text``).

The ``ffo`` console command wires :func:`add_arguments` and :func:`run` into
its ``map`` sub-command; ``python -m ffo_env.ffo.render.cli_map`` runs it alone.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

from ffo_env.atomic import atomic_write_bytes
from ffo_env.core.errors import DataError
from ffo_env.ffo.core.mapfile import load_map


def add_arguments(parser: argparse.ArgumentParser) -> None:
    out = parser.add_mutually_exclusive_group(required=True)
    out.add_argument("--png", type=Path, metavar="PATH", help="write the map as a PNG image")
    out.add_argument("--text", action="store_true", help="print the map as text (one character per hex)")
    parser.add_argument(
        "--scale",
        type=float,
        default=1.0,
        metavar="S",
        help="PNG size factor (1.0 = 64 px between hex centres, ~2300x3500 px)",
    )
    parser.add_argument(
        "--map",
        type=Path,
        default=None,
        metavar="CSV",
        help="map file to draw (default: the packaged map.csv)",
    )
    parser.add_argument("--no-legend", action="store_true", help="leave out the legend")


def run(args: argparse.Namespace) -> int:
    try:
        md = load_map(args.map)
    except DataError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.text:
        from ffo_env.ffo.render.maptext import render_map_text

        sys.stdout.write(render_map_text(md, legend=not args.no_legend))
        return 0
    if not 0.1 <= args.scale <= 8.0:
        print(f"error: --scale {args.scale} out of range 0.1..8", file=sys.stderr)
        return 2
    # Pillow is only needed for the PNG
    from PIL import Image

    from ffo_env.ffo.render.mapimage import render_map

    img = render_map(md, scale=args.scale, legend=not args.no_legend)
    buf = io.BytesIO()
    img.save(buf, format=Image.registered_extensions().get(args.png.suffix.lower(), "PNG"))
    atomic_write_bytes(args.png, buf.getvalue())
    print(f"wrote {args.png} ({img.width}x{img.height} px)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ffo map", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
