"""The summary format: the codec, its reader, writer and report."""
from .._codec import Codec
from .. import default_codec
