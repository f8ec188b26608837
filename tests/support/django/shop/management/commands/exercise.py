"""`manage.py exercise`: the ORM's reads and writes over the shop models, each step's outcome
printed as one JSON document, so that two servers' runs compare line for line. Values that a
server picks (timestamps, the explain plan's costs) are reduced to what both must agree on."""

import datetime
import decimal
import json

from django.core.management.base import BaseCommand
from django.db import IntegrityError, connection, transaction
from django.db.models import Avg, Count, F, Max, Min, Q, Sum
from django.db.models.functions import Coalesce

from shop.models import Customer, Line, Order, Product


def plain(value):
    if isinstance(value, decimal.Decimal):
        return f"Decimal({value})"
    if isinstance(value, datetime.datetime):
        return "aware datetime" if value.tzinfo else "naive datetime"
    if isinstance(value, (bytes, memoryview)):
        return bytes(value).hex()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


class Command(BaseCommand):
    def handle(self, *args, **options):
        steps = {}
        alice = Customer.objects.create(email="alice@example.com", name="Alice")
        bob = Customer.objects.create(email="bob@example.com", name="Bob")
        steps["ids"] = [alice.pk, bob.pk]
        products = Product.objects.bulk_create([
            Product(sku="pen", shelf=1, price=decimal.Decimal("1.50"), stock=100,
                    attributes={"colour": "blue", "sizes": [1, 2]}, picture=b"\x00\xffpng"),
            Product(sku="pen", shelf=2, price=decimal.Decimal("1.75"), stock=5),
            Product(sku="ink", shelf=1, price=decimal.Decimal("12.00"), stock=0,
                    attributes={"colour": "black", "litres": 0.5}),
        ])
        steps["bulk_ids"] = [p.pk for p in products]
        try:
            with transaction.atomic():
                Product.objects.create(sku="pen", shelf=1, price=1, stock=1)
        except IntegrityError as exc:
            steps["unique_together"] = exc.args[0]
        with transaction.atomic():
            order = Order.objects.create(customer=alice, note="first")
            pen = Product.objects.select_for_update().get(sku="pen", shelf=1)
            Line.objects.create(order=order, product=pen, quantity=3, unit_price=pen.price)
            Product.objects.filter(pk=pen.pk).update(stock=F("stock") - 3)
        try:
            with transaction.atomic():
                order2 = Order.objects.create(customer=bob, note="rolled back")
                Line.objects.create(order=order2, product=products[2], quantity=1, unit_price=12)
                raise RuntimeError("undo")
        except RuntimeError:
            pass
        steps["orders_after_rollback"] = list(Order.objects.values_list("note", flat=True))
        with transaction.atomic():
            outer = Order.objects.create(customer=bob, note="outer")
            try:
                with transaction.atomic():  # a savepoint
                    Line.objects.create(order=outer, product=products[1], quantity=1, unit_price=1)
                    Line.objects.create(order=outer, product=products[1], quantity=2, unit_price=1)
            except IntegrityError as exc:
                steps["savepoint_error"] = exc.args[0]
            Line.objects.create(order=outer, product=products[2], quantity=2, unit_price=12)
        steps["lines"] = list(Line.objects.order_by("pk").values_list("order__note", "product__sku",
                                                                       "quantity", "unit_price"))
        steps["stock"] = list(Product.objects.order_by("pk").values_list("sku", "shelf", "stock"))
        steps["aggregates"] = Product.objects.aggregate(
            total=Sum("price"), mean=Avg("price"), low=Min("price"), high=Max("price"), n=Count("pk"))
        steps["per_customer"] = list(Customer.objects.annotate(
            orders_n=Count("orders"), spent=Coalesce(Sum(F("orders__lines__quantity") * F("orders__lines__unit_price")), 0,
                                                     output_field=Product._meta.get_field("price")))
            .order_by("name").values_list("name", "orders_n", "spent"))
        steps["json_lookup"] = list(Product.objects.filter(attributes__colour="blue").values_list("sku", flat=True))
        steps["json_key"] = list(Product.objects.order_by("pk").values_list("attributes__colour", flat=True))
        steps["json_has_key"] = list(Product.objects.filter(attributes__has_key="litres").values_list("sku", flat=True))
        steps["json_contains"] = list(Product.objects.filter(attributes__contains={"colour": "black"})
                                      .values_list("sku", flat=True))
        steps["binary"] = [bytes(p.picture) if p.picture is not None else None
                           for p in Product.objects.order_by("pk")]
        steps["q"] = list(Product.objects.filter(Q(stock=0) | Q(price__gt=1.6)).order_by("-price")
                          .values_list("sku", "price"))
        steps["dates"] = list(Order.objects.order_by("pk").values_list("placed", flat=True))
        steps["year"] = Order.objects.filter(placed__year__gte=2000).count()
        before = Product.objects.get(sku="ink").updated
        ink = Product.objects.get(sku="ink")
        ink.stock = 7
        ink.save()
        steps["auto_now_moved"] = Product.objects.get(sku="ink").updated >= before
        steps["get_or_create"] = Customer.objects.get_or_create(email="bob@example.com",
                                                                 defaults={"name": "x"})[1]
        steps["update_or_create"] = Customer.objects.update_or_create(
            email="carol@example.com", defaults={"name": "Carol"})[1]
        steps["in_bulk"] = sorted(Customer.objects.in_bulk([alice.pk, bob.pk]))
        Product.objects.bulk_update([Product(pk=products[1].pk, stock=50)], ["stock"])
        steps["bulk_update"] = Product.objects.get(pk=products[1].pk).stock
        try:
            Product.objects.filter(sku="ink").delete()
        except Exception as exc:  # PROTECT
            steps["protect"] = type(exc).__name__
        steps["cascade"] = Customer.objects.filter(name="Bob").delete()
        steps["distinct"] = list(Product.objects.values_list("sku", flat=True).distinct().order_by("sku"))
        steps["slice"] = list(Product.objects.order_by("pk").values_list("pk", flat=True)[1:3])
        steps["exists"] = Order.objects.filter(paid=True).exists()
        steps["iterator"] = [c.email for c in Customer.objects.order_by("pk").iterator(chunk_size=1)]
        explained = Product.objects.filter(sku="pen").explain()
        steps["explain"] = explained.splitlines()[0].split()[:2] if explained else explained
        with connection.cursor() as cursor:
            cursor.execute("SELECT VERSION() LIKE %s", ["%MariaDB%"])
            steps["mariadb"] = cursor.fetchone()[0]
        for name, value in steps.items():
            self.stdout.write(json.dumps({name: plain(value)}, sort_keys=True))
