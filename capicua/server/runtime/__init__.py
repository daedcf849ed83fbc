"""Running the process: the uvicorn edge, heap housekeeping, logging set-up."""
