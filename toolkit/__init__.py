"""The toolkit's front door, `honest-evals VERB`: a thin layer above the stages (door.py), which
no stage imports."""
