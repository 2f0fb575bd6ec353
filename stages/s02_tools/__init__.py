"""Stage 2: tools the model can call, with arguments checked before anything runs."""
