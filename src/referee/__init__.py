"""referee: resolve tabletop role-playing actions by their rules."""
