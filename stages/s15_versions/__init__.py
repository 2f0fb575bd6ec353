"""Stage 15: your agent changed — two versions paired case by case, and the corrected number."""
