# Turns Python values from chdb / pyarrow / pyiceberg into JSON that JavaScript reads without loss.
# Shared by the helper scripts in this folder.
import base64
import datetime
import decimal
import math
import uuid

# JS numbers are exact only up to 2**53 - 1; larger integers are sent as decimal strings instead.
MAX_SAFE = 2**53 - 1


def to_json_safe(value):
    """Integers beyond ±MAX_SAFE → str; NaN/±Infinity → "NaN"/"Infinity"/"-Infinity"; Decimal → str; dates/times → ISO 8601; bytes → base64; UUID → str."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, float):
        # JSON has no NaN/Infinity (JSON.parse rejects Python's NaN token); send the names as strings.
        return value if math.isfinite(value) else str(value).replace("inf", "Infinity").replace("nan", "NaN")
    if isinstance(value, int):
        return str(value) if abs(value) > MAX_SAFE else value
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, dict):
        return {str(k): to_json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        # pyarrow returns maps as lists of (key, value) tuples; keep them as 2-element arrays.
        return [to_json_safe(v) for v in value]
    raise TypeError(f"cannot encode {type(value).__name__} as JSON")
