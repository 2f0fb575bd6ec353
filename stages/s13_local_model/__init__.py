"""Stage 13: a real model on this machine — llama.cpp, its recording and replay, and
model-made twins."""
