"""Mitsuba 3 scene importer (.xml, as Falcor 8 registers its MitsubaImporter).

The file is read with the standard library's expat parser (see _mitsuba_xml: no DTDs or entities,
bounded size, nesting and include depth; every error names file:line) into plugin objects, which
_mitsuba_build (sensors, emitters, settings), _mitsuba_shapes and _mitsuba_materials map to
Falcor's scene so that renders agree with Mitsuba's RGB variants (scalar_rgb); docs/importers/mitsuba.md
has the full table:

- Parameters: `<default name value>` and `$name` substitution; the str -> str dict given to
  `importScene(path, dict)` (or `load_mitsuba(path, params)`) overrides the defaults, like
  Mitsuba's `load_file(path, **params)`. `ref` by id, `include` (relative, <= 15 deep, cycles
  refused), `alias`, `path`; transforms translate/rotate/scale/matrix/lookat composed in order.
- Colours: `rgb` as it is (linear), `spectrum` wavelength:value pairs integrated against the CIE
  1931 curves as Mitsuba's RGB variants do (reflectances under D65, emitters without it).
- Sensors `perspective`, `thinlens` -> Camera: position/target/up from to_world (Mitsuba's camera
  looks down its local +Z with +Y up), fov along fov_axis (x default, y, diagonal, smaller,
  larger) or focal_length (35 mm, diagonal) converted to Falcor's vertical fov with the film's
  aspect ratio (`camera.aspectRatio` = width / height), near_clip/far_clip, aperture_radius and
  focus_distance (thinlens). The film's resolution and the sampler's sample_count are not scene
  state: `read_mitsuba` returns them (`Settings`), the import logs them, and the script renders
  at the size it sets (use the film's size to get Mitsuba's framing on non-square films).
- Integrator: max_depth is reported; PathTracer's maxSurfaceBounces = max_depth - 2.
- Emitters: `area` on a shape -> emissive StandardMaterial (radiance), one-sided as in Mitsuba;
  `point` -> PointLight (intensity; position or to_world); `spot` -> PointLight with an opening
  angle (cutoff_angle, beam_width); `directional` -> DirectionalLight (irradiance, direction or
  to_world's +Z); `constant` -> a 1-texel EnvMap of the radiance; `envmap` -> EnvMap of the image
  resampled from Mitsuba's pole-aligned rows to our texel-centred ones, scale -> intensity, to_world
  -> rotation (our lat-long u is Mitsuba's + 1/2: a half-turn about Y is composed in). One
  environment map: a second one is skipped with a warning.
- BSDFs -> Falcor's PBRT materials: diffuse -> PBRTDiffuse (reflectance), conductor/roughconductor
  -> PBRTConductor (eta, k from `material` presets or values; alpha/alpha_u/alpha_v as GGX alpha,
  Beckmann approximated by GGX with a warning), dielectric/roughdielectric -> PBRTDielectric
  (int_ior/ext_ior, numbers or Mitsuba's names), thindielectric -> thin StandardMaterial with full
  specular transmission (as Falcor), plastic/roughplastic -> PBRTCoatedDiffuse (IoR; the
  diffuse_reflectance remapped so our layered coat reflects what Mitsuba's linear plastic model
  does), twosided -> the nested BSDF with doubleSided. One-sided materials are black from behind in
  both renderers. A shape without a BSDF gets Mitsuba's default diffuse 0.5.
- Textures on reflectance/diffuse_reflectance: `bitmap` (filename, raw) -> BaseColor texture;
  `checkerboard` (color0, color1, to_uv) -> a baked texture.
- Shapes: obj, ply (through our OBJ/PLY readers; vertex normals computed when the file has none,
  face_normals, flip_normals), rectangle, disk, cube, sphere (center, radius) tessellated as
  Mitsuba defines them; shapegroup/instance expanded into copies. Every shape's to_world is
  applied to its vertices (one root node).
- Everything else (media, other plugin types, properties not listed) is skipped with a one-time
  warning naming file:line and what was skipped.
"""
from __future__ import annotations

from pathlib import Path

from ...falcor_ext import Logger
from . import _imported as ir
from . import register_importer
from ._imported import add_to_scene_builder


def read_mitsuba(path, params: dict | None = None):
    """(ImportedScene, Settings) of a Mitsuba 3 scene file; raises falcor.ImporterError naming the
    file (and file:line) if it can't be read or mapped."""
    from ._mitsuba_build import Builder
    from ._mitsuba_xml import Reader

    path = ir.require_file(Path(path), "Mitsuba scene file").resolve()
    params = {str(k): str(v) for k, v in (params or {}).items()}
    reader = Reader(path, params)
    return Builder(reader, reader.read()).build()


def load_mitsuba(path, params: dict | None = None) -> ir.ImportedScene:
    return read_mitsuba(path, params)[0]


def import_mitsuba(path, builder, dict_=None):
    scene, settings = read_mitsuba(path, dict_)
    bounces = settings.max_surface_bounces
    Logger.log(Logger.Level.Info,
               f"'{path}': film {settings.width}x{settings.height}, {settings.spp or 'unset'} spp, max_depth "
               f"{settings.max_depth} (PathTracer maxSurfaceBounces {bounces if bounces is not None else 'unlimited'}); "
               "the render graph and the frame size are the script's.")
    add_to_scene_builder(scene, builder)


register_importer(["xml"], import_mitsuba)
