"""Running the process: the uvicorn edge, heap housekeeping, the event loop's watchdog, logging set-up."""
