"""UsdPreviewSurface materials of the USD importer, as Falcor 8's PreviewSurfaceConverter maps them to a
StandardMaterial (see usd.py's docstring for the table), plus the default material of unbound geometry.

Textures that Falcor combines on the GPU (roughness + metallic into the specular texture, opacity into
the base colour's alpha or a transmission texture) are combined here with Pillow and handed to the
scene as in-memory PNG images.
"""
from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np

from ..asset_log import record_asset
from . import _imported as ir

# UsdPreviewSurface's documented fallbacks (Falcor reads only authored inputs and gets zeros instead;
# USD's renderers use these).
_DEFAULTS = {"diffuseColor": (0.18, 0.18, 0.18), "emissiveColor": (0.0, 0.0, 0.0), "useSpecularWorkflow": 0,
             "specularColor": (0.0, 0.0, 0.0), "metallic": 0.0, "roughness": 0.5, "opacity": 1.0,
             "opacityThreshold": 0.0, "ior": 1.5}
_IGNORED_INPUTS = {"clearcoat": "clearcoat", "occlusion": "occlusion", "displacement": "displacement"}
_CHANNELS = {"r": 0, "g": 1, "b": 2, "a": 3}


class Texture:
    """A UsdUVTexture input: its image (file or bytes inside a .usdz) and the output channel(s) read."""

    def __init__(self, image: Path | ir.EmbeddedImage, output: str, shader_path: str):
        self.image, self.output, self.shader_path = image, output, shader_path

    def channel(self, pixels: np.ndarray) -> np.ndarray:
        """The single channel this input reads, (H, W) in [0, 1]."""
        index = _CHANNELS.get(self.output, 0)
        if index >= pixels.shape[2]:
            index = 0 if index < 3 else -1
        if index == -1:  # alpha of an image without one
            return np.ones(pixels.shape[:2])
        return pixels[:, :, index]


class MaterialConverter:
    """Converts each bound UsdShade.Material once; `index(material)` is its index in scene.materials."""

    def __init__(self, scene: ir.ImportedScene, warn):
        self.scene, self.warn = scene, warn
        self.converted: dict[str, int] = {}
        self.defaults: dict[tuple, int] = {}
        # UsdTransform2d of a material's texture coordinates (3x3, st' = M st), applied to the meshes using
        # it (meshes are made per material, so baking it in is exact); Falcor sets a texture transform.
        self.uv_transforms: dict[int, np.ndarray] = {}
        self._uv_transform: np.ndarray | None = None

    def index(self, material, prim) -> int:
        if material is None:
            return self.default_index(prim)
        source = material.GetPrim()  # instances of one prototype share its material
        key = str((source.GetPrimInPrototype() if source.IsInstanceProxy() else source).GetPath())
        if key not in self.converted:
            self._uv_transform = None
            converted = self._convert(material)
            if converted is None:
                return self.default_index(prim)
            self.converted[key] = len(self.scene.materials)
            if self._uv_transform is not None:
                self.uv_transforms[len(self.scene.materials)] = self._uv_transform
            self.scene.materials.append(converted)
        return self.converted[key]

    def default_index(self, prim) -> int:
        """Falcor's default for unbound meshes: the prim's first displayColor (else grey 0.7), roughness
        0.3, metallic 0, IoR 1.5, double-sided."""
        color = _display_color(prim)
        if color not in self.defaults:
            self.defaults[color] = len(self.scene.materials)
            self.scene.materials.append(ir.Material(f"default-mesh-{len(self.defaults) - 1}", base_color=(*color, 1.0),
                                                    specular_params=(0.0, 0.3, 0.0, 1.0), index_of_refraction=1.5,
                                                    double_sided=True))
        return self.defaults[color]

    def _convert(self, material) -> ir.Material | None:
        name = str(material.GetPath())
        shader = material.ComputeSurfaceSource()[0]
        shader_id = shader.GetIdAttr().Get() if shader else None
        if shader_id != "UsdPreviewSurface":
            contexts = [o.GetBaseName() for o in material.GetOutputs()]
            what = f"a '{shader_id}' surface" if shader_id else f"no UsdPreviewSurface (outputs: {', '.join(contexts)})"
            self.warn(name, f"material has {what}; MaterialX and other networks are not supported, the default "
                            "material is used")
            return None
        inputs = {i.GetBaseName(): i for i in shader.GetInputs()}
        lower = {k.lower(): v for k, v in inputs.items()}
        values, textures = {}, {}
        for key in list(_DEFAULTS) + ["normal"]:
            source = lower.get(key.lower())
            value, texture = self._read_input(source, name) if source is not None else (None, None)
            values[key] = _DEFAULTS.get(key) if value is None else value
            if texture is not None:
                textures[key] = texture
        for key, what in _IGNORED_INPUTS.items():
            if key.lower() in lower and _nonzero_effect(key, lower[key.lower()]):
                self.warn(name, f"the UsdPreviewSurface input '{key}' is skipped (Falcor's StandardMaterial has no {what})")
        return self._standard(name, values, textures)

    def _read_input(self, shade_input, material_name: str):
        """(value, Texture) of a shader input: a constant, or the UsdUVTexture it is connected to."""
        from pxr import UsdShade

        attributes = shade_input.GetValueProducingAttributes()
        if not attributes:
            return _python_value(shade_input.Get()), None
        attribute = attributes[0]
        if UsdShade.Utils.GetType(attribute.GetName()) != UsdShade.AttributeType.Output:
            return _python_value(attribute.Get()), None
        shader = UsdShade.Shader(attribute.GetPrim())
        output = UsdShade.Utils.GetBaseNameAndType(attribute.GetName())[0]
        if shader.GetIdAttr().Get() != "UsdUVTexture":
            self.warn(material_name, f"input '{shade_input.GetBaseName()}' is connected to a "
                                     f"'{shader.GetIdAttr().Get()}' node, which is not supported; its default is used")
            return None, None
        return _fallback(shader), self._texture(shader, str(output), material_name)

    def _texture(self, shader, output: str, material_name: str) -> Texture | None:
        file_input = shader.GetInput("file")
        asset = file_input.Get() if file_input else None
        if asset is None or not asset.path:
            self.warn(material_name, f"texture '{shader.GetPath()}' has no file; its fallback is used")
            return None
        st = shader.GetInput("st")
        if st and st.HasConnectedSource():
            self._read_st(st, shader, material_name)
        image = resolve_asset(asset, self.scene.path)
        if image is None:
            self.warn(material_name, f"texture '{asset.path}' can't be found; its fallback is used")
            return None
        return Texture(image, output, str(shader.GetPath()))

    def _read_st(self, st, shader, material_name: str) -> None:
        """A UsdTransform2d feeding a texture's st: scale, then rotate (degrees), then translate."""
        from pxr import UsdShade

        attributes = st.GetValueProducingAttributes()
        node = UsdShade.Shader(attributes[0].GetPrim()) if attributes else None
        source = node.GetIdAttr().Get() if node else None
        if source == "UsdTransform2d":
            def value(name, default):
                i = node.GetInput(name)
                v = i.Get() if i else None
                return default if v is None else v

            sx, sy = (float(c) for c in value("scale", (1.0, 1.0)))
            angle = np.radians(float(value("rotation", 0.0)))
            tx, ty = (float(c) for c in value("translation", (0.0, 0.0)))
            c, s = np.cos(angle), np.sin(angle)
            matrix = np.array([[c * sx, -s * sy, tx], [s * sx, c * sy, ty], [0.0, 0.0, 1.0]])
            if not np.all(np.isfinite(matrix)):
                self.warn(material_name, f"the UsdTransform2d of '{shader.GetPath()}' is not finite; it is skipped")
            elif self._uv_transform is not None and not np.allclose(self._uv_transform, matrix):
                self.warn(material_name, "textures with different UsdTransform2d: the first one is used for all")
            else:
                self._uv_transform = matrix
        elif source and source != "UsdPrimvarReader_float2":
            self.warn(material_name, f"texture '{shader.GetPath()}' reads its coordinates through '{source}', "
                                     "which is not supported (the mesh's texture coordinates are used)")

    def _standard(self, name: str, values: dict, textures: dict) -> ir.Material:
        """Falcor's PreviewSurfaceConverter::convert, with the USD defaults for unauthored inputs."""
        base = tuple(float(c) for c in values["diffuseColor"][:3])
        opacity, threshold = float(values["opacity"]), float(values["opacityThreshold"])
        roughness, metallic = float(values["roughness"]), float(values["metallic"])
        m = ir.Material(name, base_color=(*base, 1.0), specular_params=(0.0, roughness, metallic, 1.0),
                        emissive_color=tuple(float(c) for c in values["emissiveColor"][:3]),
                        index_of_refraction=float(values["ior"]), double_sided=True)
        if int(values["useSpecularWorkflow"] or 0):
            # Beyond Falcor (which warns and stays metal-rough): the specular workflow is SpecGloss.
            m.shading_model = "SpecGloss"
            m.specular_params = (*(float(c) for c in values["specularColor"][:3]), 1.0 - roughness)
        if "diffuseColor" in textures:
            m.textures["BaseColor"] = textures["diffuseColor"].image
        if "emissiveColor" in textures:
            m.textures["Emissive"] = textures["emissiveColor"].image
            m.emissive_color = (1.0, 1.0, 1.0)
        if "normal" in textures:
            m.textures["Normal"] = textures["normal"].image
        if "roughness" in textures or "metallic" in textures:
            specular = self._combine(name, "specular", [None, (textures.get("roughness"), roughness),
                                                       (textures.get("metallic"), metallic)])
            if specular is not None:
                m.textures["Specular"] = specular
        if opacity < 1.0 or "opacity" in textures:
            self._opacity(m, name, opacity, threshold, textures, base)
        return m

    def _opacity(self, m: ir.Material, name: str, opacity: float, threshold: float, textures: dict, base):
        """Falcor: with a threshold, opacity is the alpha of the base colour (a cutout); without one it
        becomes specular transmission 1 - opacity (a texture of it when opacity is textured)."""
        m.alpha_threshold = threshold
        texture = textures.get("opacity")
        if threshold > 0.0:
            if texture is None and "diffuseColor" not in textures:
                m.base_color = (*base, opacity)
                return
            color = textures.get("diffuseColor")
            packed = self._combine(name, "basecolor-alpha", [(color, base[0]), (color, base[1]), (color, base[2]),
                                                             (texture, opacity)], rgb_source=color)
            if packed is not None:
                m.textures["BaseColor"] = packed
            return
        if texture is None:
            m.specular_transmission = 1.0 - opacity
            return
        transmission = self._combine(name, "transmission", [(texture, opacity)] * 3, invert=True)
        if transmission is not None:
            m.textures["Transmission"] = transmission
            m.specular_transmission = 1.0

    def _combine(self, name: str, what: str, channels: list, rgb_source: Texture | None = None,
                 invert: bool = False) -> ir.EmbeddedImage | None:
        """An RGB(A) PNG whose channels come from single texture channels or constants (None: zero)."""
        from PIL import Image

        images = {}
        try:
            for channel in channels:
                if channel is not None and channel[0] is not None:
                    images[id(channel[0])] = _decoded(channel[0].image)
        except (OSError, ValueError) as e:
            self.warn(name, f"the {what} texture can't be combined ({e}); the constant values are used")
            return None
        height = max((im.shape[0] for im in images.values()), default=1)
        width = max((im.shape[1] for im in images.values()), default=1)
        planes = []
        for k, channel in enumerate(channels):
            if channel is None:
                planes.append(np.zeros((height, width)))
                continue
            texture, constant = channel
            if texture is None:
                planes.append(np.full((height, width), float(constant)))
                continue
            pixels = _resized(images[id(texture)], width, height)
            plane = pixels[:, :, min(k, pixels.shape[2] - 1)] if texture is rgb_source and k < 3 else texture.channel(pixels)
            planes.append(1.0 - plane if invert else plane)
        array = np.clip(np.stack(planes, axis=2) * 255.0 + 0.5, 0, 255).astype(np.uint8)
        buffer = io.BytesIO()
        Image.fromarray(array).save(buffer, format="PNG")
        return ir.EmbeddedImage(f"{self.scene.path}:{name}:{what}", buffer.getvalue())


def _fallback(shader):
    fallback = shader.GetInput("fallback")
    return None if fallback is None or fallback.Get() is None else tuple(fallback.Get())[:3]


def _nonzero_effect(key: str, shade_input) -> bool:
    value = shade_input.Get()
    if shade_input and shade_input.HasConnectedSource():
        return True
    if key == "occlusion":
        return value is not None and float(value) != 1.0
    return value is not None and float(value) != 0.0


def _python_value(value):
    if value is None:
        return None
    if hasattr(value, "__len__") and not isinstance(value, str):
        return tuple(float(c) for c in value)
    return value


def _display_color(prim) -> tuple:
    from pxr import UsdGeom

    color: tuple = (0.7, 0.7, 0.7)
    gprim = UsdGeom.Gprim(prim)
    if gprim:
        values = gprim.GetDisplayColorPrimvar().ComputeFlattened()
        if values is not None and len(values) > 0 and all(np.isfinite(tuple(values[0]))):
            color = tuple(round(float(c), 6) for c in values[0])
    return color


def resolve_asset(asset, scene_path) -> Path | ir.EmbeddedImage | None:
    """The file of an Sdf.AssetPath (recorded as read), or the bytes of a file inside a .usdz package."""
    resolved = asset.resolvedPath
    if not resolved:
        return None
    if "[" in resolved and resolved.endswith("]"):
        return _package_member(resolved, scene_path)
    path = Path(resolved)
    if not path.is_file():
        return None
    record_asset(path)
    return path


def _package_member(resolved: str, scene_path) -> ir.EmbeddedImage | None:
    """'/a/b.usdz[textures/c.png]' (packages may nest): read through the zip archives."""
    outer, inner = resolved[:-1].split("[", 1)
    record_asset(outer)
    try:
        data = Path(outer).read_bytes()
        for part in inner.replace("]", "").split("["):
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                info = archive.getinfo(part)
                if info.file_size > 1 << 30:
                    return None
                data = archive.read(info)
    except (OSError, KeyError, zipfile.BadZipFile, ValueError, RuntimeError, NotImplementedError):
        return None
    return ir.EmbeddedImage(f"{scene_path}:{inner}", data)


def _decoded(image: Path | ir.EmbeddedImage) -> np.ndarray:
    """Pixels (H, W, C) as floats in [0, 1]."""
    from PIL import Image

    with Image.open(io.BytesIO(image.data) if isinstance(image, ir.EmbeddedImage) else image) as im:
        if im.mode in ("I;16", "I;16B", "I"):
            return np.asarray(im, np.float64)[:, :, None] / 65535.0
        if im.mode == "F":
            return np.asarray(im, np.float64)[:, :, None]
        im = im.convert("RGBA" if "A" in im.getbands() else "RGB")
        return np.asarray(im, np.float64) / 255.0


def _resized(pixels: np.ndarray, width: int, height: int) -> np.ndarray:
    if pixels.shape[:2] == (height, width):
        return pixels
    rows = (np.arange(height) * pixels.shape[0] // height)
    cols = (np.arange(width) * pixels.shape[1] // width)
    return pixels[rows][:, cols]
