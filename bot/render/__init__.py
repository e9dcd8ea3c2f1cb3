"""What people read: answers and command results for the terminal (terminal), a GitHub comment (markdown) and Slack
(slack), the parts of an answer decided once for all three (parts)."""
