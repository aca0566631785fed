"""Audio: synthesis, recorded readings, the reading programme, playback and its clock. No Qt here."""
