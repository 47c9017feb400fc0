"""Loading the `langgraph_sdk.Encryption` object the config's `encryption.path` names.

Written as graphs and `auth.path` are (`./encryption.py:encryption` relative to the config, or
`package.module:encryption`). Anything that would leave data in plaintext, or stored in a
form the server could not read back, stops start-up with a `ConfigError` (exit code 2): a
path that does not import, an object that is not an `Encryption`, no handler at all, or an
encrypting handler without its decrypting one (or the reverse).
"""

from __future__ import annotations

import warnings

from langgraph_sdk import Encryption

from open_langgraph.config import AppConfig, ConfigError, split_target
from open_langgraph.importing import import_attribute

KEY = "encryption.path"


def load_encryption(config: AppConfig) -> Encryption | None:
    """The config's `Encryption` object, or None when the config has no `encryption`."""
    if config.encryption_path is None:
        return None
    location, attribute = split_target(config.path, KEY, config.encryption_path)
    with warnings.catch_warnings():
        # The SDK warns that its Encryption API is in beta each time one is made.
        warnings.simplefilter("ignore")
        encryption = import_attribute(config.path, KEY, location, attribute, "olg_encryption")
    if not isinstance(encryption, Encryption):
        raise ConfigError(
            config.path,
            KEY,
            f"{config.encryption_path!r} is a {type(encryption).__name__}, "
            "not a langgraph_sdk.Encryption",
        )
    pairs = {
        "json": (encryption.get_json_encryptor(), encryption.get_json_decryptor()),
        "blob": (encryption._blob_encryptor, encryption._blob_decryptor),
    }
    for kind, (encrypt, decrypt) in pairs.items():
        if (encrypt is None) != (decrypt is None):
            have, missing = ("encrypt", "decrypt") if decrypt is None else ("decrypt", "encrypt")
            raise ConfigError(
                config.path,
                KEY,
                f"{config.encryption_path!r} has @{have}.{kind} but no @{missing}.{kind}: "
                "data it wrote could not be read back, or data it reads was never encrypted",
            )
    if all(encrypt is None for encrypt, _ in pairs.values()):
        raise ConfigError(
            config.path,
            KEY,
            f"{config.encryption_path!r} has no handlers: register @encryption.encrypt.json "
            "and @encryption.decrypt.json, or the .blob pair, or both",
        )
    return encryption
