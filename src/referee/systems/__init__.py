"""Rule systems, one module each, made of pure functions returning frozen results."""
