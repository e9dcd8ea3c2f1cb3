"""Fake remote servers (real HTTP on 127.0.0.1) that tests point our real clients at."""
