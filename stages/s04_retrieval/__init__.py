"""Stage 4: answer policy questions from the corpus, and refuse when the corpus has nothing."""
