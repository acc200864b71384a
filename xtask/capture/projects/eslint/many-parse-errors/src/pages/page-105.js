import { widget16 } from "../widgets/widget-16.js";

export function render(root) {
<<<<<<< HEAD
  return widget16(root);
=======
  return widget16(root, true);
>>>>>>> feature
}
