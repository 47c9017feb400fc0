"""The bundled demo catalog (our own synthetic products) used when no data is given."""
