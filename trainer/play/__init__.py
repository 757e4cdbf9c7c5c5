"""Play: self-play games into records, endgame curricula, the opening-book learner. Imports
``trainer.data`` and ``trainer.learn``."""
