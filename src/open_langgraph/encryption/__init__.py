"""At-rest encryption through the user's own handlers (`encryption.path` of the config).

The config names a `langgraph_sdk.Encryption` object, as on LangGraph Platform. Its JSON
handlers encrypt the JSON fields of stored records (metadata, config, context, run kwargs,
thread values, ...) key by key (`fields.py`); its blob handlers encrypt checkpoints and
stored run events (`blobs.py`). The storage layer applies them (`storage/_encrypted.py`,
`storage/_encrypted_saver.py`), so everything above it sees plaintext and everything in the
database is what the handlers returned. The context a request names (`X-Encryption-Context`,
or the `@encryption.context` handler) is stored with each ciphertext (`context.py`) and handed
back to the decrypting handler.
"""

from open_langgraph.encryption.cipher import StorageCipher

__all__ = ["StorageCipher"]
