"""The table: what the sensors see, the referee, the game session and its log."""
