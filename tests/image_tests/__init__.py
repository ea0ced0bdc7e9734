# A package, so that pytest leaves this folder (and its helpers.py, which would shadow
# tests/helpers.py) off sys.path.
