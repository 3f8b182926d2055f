"""Read models kept up to date from the event log: sheets, rulings, the log view, HP timelines."""
