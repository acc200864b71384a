export interface Item {
  name: string;
  price: number;
  quantity: number;
}

export function total(items: Item[]): number {
  return items.reduce((sum, item) => sum + item.price * item.quantity, 0);
}

export function discounted(items: Item[], discount: number): number {
  return total(items) * (1 - discount);
}

export const sample: Item[] = [{ name: "tea", price: 3.5, quantity: 2 }];
