"""Queue mode (PostgreSQL + Redis, API and worker processes) under failure, with real processes."""
