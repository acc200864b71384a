export function widget16(root) {
  const node = document.createElement("div");
  root.append(node);
  return node;
}
