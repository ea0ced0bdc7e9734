# What a .pyscene script finds in its globals besides `from falcor import *`
# (falcor/scene/pyscene.py), declared for type checkers (falcor.typecheck).
from falcor.scene.scene_builder import SceneBuilder

sceneBuilder: SceneBuilder
