from .falcor_ext import *
