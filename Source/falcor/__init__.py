"""falcor: Falcor 8's Python scripting API, rendered on the CPU.

`from falcor import *` gives what Falcor's render scripts and pyscenes expect. Importing the
package loads every render pass plugin (logging `Loaded N plugin(s) in Ts`, as Falcor does).
"""
from .falcor_ext import *  # noqa: F401,F403
from . import falcor_ext
from . import image_io as _image_io  # installs the Pillow/OpenEXR image reader  # noqa: F401

falcor_ext.load_all_plugins()
