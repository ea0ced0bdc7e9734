"""`SceneRenderSettings`: which light sources renderers use."""
from __future__ import annotations

import numpy as np


def _fmt_float(v: float) -> str:
    """Shortest text of a float32, as Falcor's fmt formatting prints it ("1", "0.5")."""
    return np.format_float_positional(np.float32(v), trim="-")


class SceneRenderSettings:
    def __init__(self, useEnvLight: bool = True, useAnalyticLights: bool = True, useEmissiveLights: bool = True,
                 useGridVolumes: bool = True, diffuseAlbedoMultiplier: float = 1.0) -> None:
        self.useEnvLight = bool(useEnvLight)
        self.useAnalyticLights = bool(useAnalyticLights)
        self.useEmissiveLights = bool(useEmissiveLights)
        self.useGridVolumes = bool(useGridVolumes)
        self.diffuseAlbedoMultiplier = float(np.float32(diffuseAlbedoMultiplier))

    def _key(self) -> tuple:
        return (self.useEnvLight, self.useAnalyticLights, self.useEmissiveLights, self.useGridVolumes, self.diffuseAlbedoMultiplier)

    def _copy(self) -> "SceneRenderSettings":
        return SceneRenderSettings(*self._key())

    def __repr__(self):
        b = lambda v: "True" if v else "False"  # noqa: E731
        return (f"SceneRenderSettings(useEnvLight={b(self.useEnvLight)}, useAnalyticLights={b(self.useAnalyticLights)}, "
                f"useEmissiveLights={b(self.useEmissiveLights)}, useGridVolumes={b(self.useGridVolumes)}, "
                f"diffuseAlbedoMultiplier={_fmt_float(self.diffuseAlbedoMultiplier)})")
