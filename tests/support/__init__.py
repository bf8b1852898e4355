"""Test support code (fake servers and helpers); not part of the plugin."""
