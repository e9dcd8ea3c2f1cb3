"""The GitHub issue auto-commenter: signed webhooks in, one edited-in-place comment and a label out."""
