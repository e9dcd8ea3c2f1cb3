"""Test recipe: never finishes; its child ignores SIGTERM and has a child of its own, so only SIGKILL ends them."""
import os
import signal
import subprocess
import sys
import time

CHILD = ("import signal, subprocess, time\n"
         "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
         "g = subprocess.Popen(['sleep', '300'])\n"
         "print('pid', g.pid, flush=True)\n"
         "time.sleep(300)\n")

signal.signal(signal.SIGTERM, signal.SIG_IGN)
child = subprocess.Popen([sys.executable, "-c", CHILD])
print("pid", os.getpid(), flush=True)
print("pid", child.pid, flush=True)
time.sleep(300)
