// The currency module was never written: every suite that loads this file fails to run.
import { symbolFor } from './currency.js';

function formatPrice(amount, currency) {
  return `${symbolFor(currency)}${amount.toFixed(2)}`;
}

export { formatPrice };
